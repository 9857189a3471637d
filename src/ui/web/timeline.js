// One task's receipts in order, each as a card: status, action, decision, durations,
// truncation, redactions, artifacts (opened on demand as text) and the diff a mutation returned.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import htm from 'htm';
import { bytes, duration, resourceText, shortDigest, time } from './format.js';

export const html = htm.bind(h);

/** The normalized action; `named` repeats its tool (an approval card has no other line naming it). */
export function Action({ action, named = true }) {
  if (!action) return html`<span class="muted">no normalized action</span>`;
  return html`<div class="action">
    ${named && html`<span class="tool">${action.tool}@${action.tool_version}</span> `}<span class="badge effect-class">${action.effect_class}</span>
    <ul class="resources">${action.resources.map((r) => html`<li>${resourceText(r)}</li>`)}</ul>
  </div>`;
}

function Diff({ text }) {
  return html`<pre class="diff">${text.replace(/\n$/, '').split('\n').map((l) => html`<span class=${l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : l.startsWith('@@') ? 'hunk' : ''}>${l === '' ? ' ' : l}</span>`)}</pre>`;
}

function Decision({ d }) {
  if (!d) return html`<div class="decision muted">no decision (refused before authorization)</div>`;
  return html`<div class="decision">
    <span class="badge ${d.outcome}">${d.outcome}</span>
    <span class="muted"> policy <code title=${d.policy_version}>${shortDigest(d.policy_version)}</code> · grant <code title=${d.grant_digest}>${shortDigest(d.grant_digest)}</code></span>
    <ul class="reasons">${d.reasons.map((r, i) => html`<li>${r} <span class="muted">(${d.determining[i] ?? ''})</span></li>`)}</ul>
  </div>`;
}

function Artifacts({ receipt, open }) {
  if (receipt.artifacts.length === 0) return null;
  return html`<div class="artifacts">artifacts: ${receipt.artifacts.map(
    (a, i) => html`<span class="artifact">${a.role} (${bytes(a.bytes)}, ${a.media_type})
      ${/^(preimage|preimages|tree):/.test(a.role) ? html`<span class="muted"> kept for undo</span>` : html` <button class="open" onClick=${() => open(receipt.receipt_id, i, a.role)}>open</button>`}</span>`,
  )}</div>`;
}

function Receipt({ r, open }) {
  const diff = r.result && typeof r.result.diff === 'string' && r.result.diff !== '' ? r.result.diff : null;
  return html`<li class="receipt" data-receipt=${r.receipt_id} data-status=${r.status}>
    <div class="row">
      <span class="badge ${r.status}">${r.status}</span>
      <span class="tool">${r.tool}@${r.tool_version ?? '?'}</span>
      ${r.replay && html`<span class="badge">replay</span>`}
      ${r.truncated && html`<span class="badge truncated">truncated</span>`}
      <span class="muted">${time(r.started_at)} · ${duration(r.started_at, r.finished_at)} (queued ${r.queued_ms} ms)</span>
    </div>
    <${Action} action=${r.normalized_action} named=${false} />
    <${Decision} d=${r.decision} />
    ${r.error && html`<div class="error"><code>${r.error.code}</code> ${r.error.message}</div>`}
    ${r.redactions.length > 0 && html`<div class="redactions">redacted: ${r.redactions.map((x) => html`<span class="badge redacted">${x.rule} ×${x.count} at ${x.pointer}</span> `)}</div>`}
    <${Artifacts} receipt=${r} open=${open} />
    ${diff && html`<${Diff} text=${diff} />`}
    <div class="muted small">receipt <code>${r.receipt_id}</code>${r.idempotency_key ? html` · key <code>${r.idempotency_key}</code>` : ''} · digest <code title=${r.digest}>${shortDigest(r.digest)}</code></div>
  </li>`;
}

export function Timeline({ task, receipts, call }) {
  const [viewing, setViewing] = useState(null);
  const open = async (id, index, role) => {
    try {
      setViewing({ role, ...(await call('GET', `/artifacts/${encodeURIComponent(id)}/${index}`)) });
    } catch (e) {
      setViewing({ role, text: `cannot open: ${e.message}`, bytes: 0, truncated: false });
    }
  };
  return html`<section id="timeline" class="panel">
    <h2>Timeline ${task ? html`<span class="muted">of ${task}</span>` : ''}</h2>
    ${!task && html`<p class="muted">choose a task</p>`}
    ${viewing && html`<div id="artifact-view"><div class="row"><b>${viewing.role}</b> <span class="muted">${bytes(viewing.bytes)}${viewing.truncated ? ', first part shown' : ''}</span>
      <button onClick=${() => setViewing(null)}>close</button></div><pre>${viewing.text}</pre></div>`}
    <ol class="receipts">${(receipts ?? []).map((r) => html`<${Receipt} key=${r.receipt_id} r=${r} open=${open} />`)}</ol>
  </section>`;
}
