// The overview's panels: pending approvals, unsettled effects, denials, tasks, audit.
import { Action, html } from './timeline.js';
import { useState } from 'preact/hooks';
import { age, time } from './format.js';

export function Approvals({ approvals, now, act }) {
  return html`<section id="approvals" class="panel">
    <h2>Pending approvals <span class="count">${approvals.length}</span></h2>
    ${approvals.length === 0 && html`<p class="muted">none</p>`}
    ${approvals.map(
      (a) => html`<article key=${a.id} class="approval" data-approval=${a.id}>
        <div class="row"><code>${a.id}</code> <span class="muted">task ${a.task_id}, expires in ${age(a.expires_at - Date.parse(now))}</span></div>
        <${Action} action=${a.action} />
        <div class="muted small">why it needs a person</div>
        <ul class="reasons">${a.reasons.map((r) => html`<li>${r}</li>`)}</ul>
        <div class="row muted">action digest <code class="digest" title=${a.action_digest}>${a.action_digest}</code></div>
        <div class="row">
          <button class="approve" onClick=${() => act('POST', `/approvals/${encodeURIComponent(a.id)}`, { decision: 'approve', action_digest: a.action_digest })}>Approve</button>
          <button class="deny" onClick=${() => act('POST', `/approvals/${encodeURIComponent(a.id)}`, { decision: 'deny', action_digest: a.action_digest })}>Deny</button>
        </div>
      </article>`,
    )}
  </section>`;
}

function SettleForm({ e, act }) {
  const [reason, setReason] = useState('');
  const settle = (settle) => act('POST', '/effects/settle', { task_id: e.task_id, effect_key: e.effect_key, settle, reason });
  return html`<div class="row settle">
    <input class="reason" placeholder="reason (recorded in the receipt)" value=${reason} onInput=${(ev) => setReason(ev.currentTarget.value)} />
    <button disabled=${reason.trim() === ''} onClick=${() => settle('completed')}>It happened</button>
    <button disabled=${reason.trim() === ''} onClick=${() => settle('released')}>It did not</button>
  </div>`;
}

export function Unsettled({ unsettled, act }) {
  return html`<section id="unsettled" class="panel">
    <h2>Ambiguous effects <span class="count">${unsettled.length}</span>
      <button class="reconcile" onClick=${() => act('POST', '/reconcile')}>Reconcile</button></h2>
    ${unsettled.length === 0 && html`<p class="muted">none</p>`}
    ${unsettled.map(
      (e) => html`<article key=${`${e.task_id} ${e.effect_key}`} class="effect" data-effect=${e.effect_key}>
        <div class="row"><span class="tool">${e.tool}@${e.tool_version}</span>
          <span class="badge ${e.state}">${e.state === 'ambiguous' ? 'ambiguous' : e.owner_alive ? 'sent, running' : 'sent, runtime gone'}</span>
          <span class="age">age ${age(e.age_ms)}</span></div>
        <div class="row muted">task ${e.task_id} · key <code>${e.effect_key}</code>${e.idempotency_key ? html` · idempotency key <code>${e.idempotency_key}</code>` : ''}</div>
        <${SettleForm} e=${e} act=${act} />
      </article>`,
    )}
  </section>`;
}

export function Denials({ denials, select }) {
  return html`<section id="denials" class="panel">
    <h2>Denials <span class="count">${denials.length}</span></h2>
    ${denials.length === 0 && html`<p class="muted">none</p>`}
    <table>
      <thead><tr><th>task</th><th>tool</th><th>times</th><th>codes</th><th>reasons</th></tr></thead>
      <tbody>${denials.map(
        (d) => html`<tr key=${`${d.task_id} ${d.action_digest ?? d.last_receipt_id}`} class=${d.repeated ? 'repeated' : ''}>
          <td><a href="#" onClick=${(ev) => (ev.preventDefault(), select(d.task_id))}>${d.task_id}</a></td>
          <td>${d.tool}</td>
          <td class="times">${d.count}${d.repeated ? html` <span class="badge denied">repeated</span>` : ''}</td>
          <td>${d.codes.join(', ')}</td>
          <td>${d.reasons.join('; ') || '-'}</td>
        </tr>`,
      )}</tbody>
    </table>
  </section>`;
}

export function Tasks({ tasks, selected, select }) {
  return html`<section id="tasks" class="panel">
    <h2>Tasks <span class="count">${tasks.length}</span></h2>
    <ul class="tasks">${tasks.map(
      (t) => html`<li key=${t.task_id} class=${t.task_id === selected ? 'selected' : ''}>
        <a href="#" data-task=${t.task_id} onClick=${(ev) => (ev.preventDefault(), select(t.task_id))}>${t.task_id}</a>
        <div class="muted">${t.receipts} receipt${t.receipts === 1 ? "" : "s"} · ${time(t.last_at)}</div>
        <div>${Object.entries(t.statuses).map(([s, n]) => html`<span class="badge ${s}">${s} ${n}</span> `)}</div>
      </li>`,
    )}</ul>
  </section>`;
}

export function Audit({ audit, verify }) {
  return html`<section id="audit" class="panel ${audit === null ? '' : audit.ok ? 'ok' : 'broken'}">
    <h2>Audit <button class="verify" onClick=${verify}>Verify again</button></h2>
    ${audit === null
      ? html`<p class="muted">verifying…</p>`
      : html`<p class="verdict">${audit.ok ? 'chain ok' : 'CHAIN BROKEN'}: ${audit.receipts} receipts in ${audit.tasks} tasks</p>
          <p class="muted small">checked ${time(audit.checked_at)}</p>
          ${audit.broken.map((b) => html`<p class="broken-link">task ${b.task_id}: receipt #${b.seq} <code>${b.receipt_id}</code>: ${b.reason}</p>`)}`}
  </section>`;
}
