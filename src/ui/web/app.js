// The web view: one page, state from /api/overview and /api/tasks/ID, refreshed after every
// action and every REFRESH_MS. preact + htm as plain ES modules: no build step.
/* global document, setInterval, clearInterval */
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, takeToken } from './api.js';
import { Approvals, Audit, Denials, Tasks, Unsettled } from './panels.js';
import { html, Timeline } from './timeline.js';

const REFRESH_MS = 10_000;

function App() {
  const [token] = useState(takeToken);
  const [overview, setOverview] = useState(null);
  const [audit, setAudit] = useState(null);
  const [task, setTask] = useState(null);
  const [receipts, setReceipts] = useState(null);
  const [refused, setRefused] = useState(token === null);
  const [notice, setNotice] = useState(null);
  // The task whose timeline was asked for last: an older answer arriving later is dropped.
  const wanted = useRef(null);

  const call = useCallback((method, path, body) => api(token, method, path, body), [token]);

  const load = useCallback(async () => {
    try {
      const o = await call('GET', '/overview');
      setOverview(o);
      const current = task ?? o.tasks[0]?.task_id ?? null;
      if (current !== task) setTask(current);
      wanted.current = current;
      if (current === null) return;
      const timeline = await call('GET', `/tasks/${encodeURIComponent(current)}`);
      if (wanted.current === current) setReceipts(timeline.receipts);
    } catch (e) {
      if (e.status === 401) setRefused(true);
      else setNotice({ kind: 'error', text: e.message });
    }
  }, [call, task]);

  // Once at start and on request: it recomputes every digest (see /api/audit).
  const verify = useCallback(async () => {
    setAudit(null);
    try {
      setAudit(await call('GET', '/audit'));
    } catch (e) {
      if (e.status === 401) setRefused(true);
      else setNotice({ kind: 'error', text: e.message });
    }
  }, [call]);

  useEffect(() => {
    if (!refused) void verify();
  }, [verify, refused]);

  useEffect(() => {
    if (refused) return undefined;
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load, refused]);

  const act = async (method, path, body) => {
    try {
      await call(method, path, body);
      setNotice({ kind: 'ok', text: `done: ${path}` });
    } catch (e) {
      setNotice({ kind: 'error', text: `${e.code ?? 'error'}: ${e.message}` });
    }
    await load();
  };

  if (refused) {
    return html`<main id="refused" class="panel"><h1>Toolgate</h1><p>The token is missing or wrong. Open the address <code>toolgate ui</code> printed: it carries the token.</p></main>`;
  }
  return html`<header><h1>Toolgate</h1><span class="muted">${overview ? `as of ${overview.now}` : 'loading…'}</span>
      <button id="refresh" onClick=${() => void load()}>Refresh</button></header>
    ${notice && html`<div id="notice" class=${notice.kind}>${notice.text}</div>`}
    ${overview &&
    html`<div class="layout">
      <aside>
        <${Audit} audit=${audit} verify=${() => void verify()} />
        <${Tasks} tasks=${overview.tasks} selected=${task} select=${setTask} />
      </aside>
      <div class="main">
        <${Approvals} approvals=${overview.approvals} now=${overview.now} act=${act} />
        <${Unsettled} unsettled=${overview.unsettled} act=${act} />
        <${Denials} denials=${overview.denials} select=${setTask} />
        <${Timeline} task=${task} receipts=${receipts} call=${call} />
      </div>
    </div>`}`;
}

render(html`<${App} />`, document.getElementById('app'));
