// Effects are planned on a snapshot and re-checked on the live page right before they act.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { browserRuntime, html, Site, type BrowserRuntime } from './harness.js';

describe('browser: snapshots and stale_page_state', () => {
  let site: Site;
  let h: BrowserRuntime;
  before(async () => {
    site = await Site.start({
      '/': html(`<h1>Home</h1><button onclick="document.getElementById('out').textContent='clicked'">Go</button><p id="out"></p>
        <button id="rerender" onclick="setTimeout(() => { const b = document.getElementById('target'); const n = b.cloneNode(true); n.onclick = () => { document.getElementById('out').textContent = 'twin clicked'; }; b.replaceWith(n); }, 0)">Re-render</button>
        <button id="target" onclick="document.getElementById('out').textContent='target clicked'">Pay</button>
        <button>Dup</button><button>Dup</button>
        <a href="/next">Next page</a>`),
      '/next': html('<h1>Next</h1>'),
    });
    h = await browserRuntime();
  });
  after(async () => {
    await h.done();
    await site.close();
  });

  it('opens, snapshots with role+name locators, clicks the element the snapshot named', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    assert.equal(open.status, 'succeeded', JSON.stringify(open.error));
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const snap = await h.rt.call(envelope('browser.snapshot', { tab }));
    assert.equal(snap.status, 'succeeded', JSON.stringify(snap.error));
    const s = snap.result as { snapshot_id: string; elements: { locator: Record<string, string> }[]; a11y_digest: string; generation: number; tree: string };
    assert.match(s.tree, /button "Go"/);
    assert.ok(s.elements.some((e) => e.locator['role'] === 'button' && e.locator['name'] === 'Go'), JSON.stringify(s.elements));
    // Two buttons named "Dup": not a role+name locator (ambiguous), and never an index.
    assert.ok(!s.elements.some((e) => e.locator['name'] === 'Dup'));
    const click = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Go' } }));
    assert.equal(click.status, 'succeeded', JSON.stringify(click.error));
    const r = click.result as { before: { a11y_digest: string }; after: { a11y_digest: string; url: string }; screenshot: string };
    assert.equal(r.before.a11y_digest, s.a11y_digest);
    assert.notEqual(r.after.a11y_digest, s.a11y_digest, 'the click changed the page');
    assert.ok(click.artifacts.some((a) => a.digest === r.screenshot), 'the screenshot is an artifact of the receipt');
  });

  it('a page that re-renders the element between snapshot and click: refused stale_page_state, the twin is not clicked', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const s = (await h.rt.call(envelope('browser.snapshot', { tab }))).result as { snapshot_id: string };
    // Re-render after the snapshot (planned on an earlier one, the agent does not know).
    const rr = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Re-render' } }));
    assert.equal(rr.status, 'succeeded', JSON.stringify(rr.error));
    const pay = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Pay' } }));
    assert.equal(pay.status, 'failed');
    assert.equal(pay.error?.code, 'stale_page_state');
    assert.equal(pay.error?.data['reason'], 'element_identity');
    const after = (await h.rt.call(envelope('browser.snapshot', { tab }))).result as { tree: string };
    assert.doesNotMatch(after.tree, /twin clicked|target clicked/);
  });

  it('after a navigation the old snapshot is stale (generation), and an ambiguous or unknown locator is refused', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const s = (await h.rt.call(envelope('browser.snapshot', { tab }))).result as { snapshot_id: string };
    const dup = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Dup' } }));
    assert.equal(dup.error?.code, 'stale_page_state');
    assert.equal(dup.error?.data['reason'], 'not_in_snapshot');
    const nav = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'link', name: 'Next page' } }));
    assert.equal(nav.status, 'succeeded', JSON.stringify(nav.error));
    assert.match((nav.result as { after: { url: string } }).after.url, /\/next$/);
    const again = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Go' } }));
    assert.equal(again.error?.code, 'stale_page_state');
    assert.equal(again.error?.data['reason'], 'generation');
  });
});
