// Downloads become untrusted artifacts (never workspace files), uploads carry bytes Toolgate read
// from the workspace (secrets refused), a popup is a new tab, a frame is snapshotted and acted on
// by its own id.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope } from '../../support/fixtures.js';
import { browserRuntime, html, Site, type BrowserRuntime } from './harness.js';

interface Snap {
  snapshot_id: string;
  tree: string;
  url: string;
  frames: { frame: string; name: string; url: string }[];
  tabs: { tab: string; url: string }[];
  elements: { locator: Record<string, string>; tag: string }[];
}

describe('browser: downloads, uploads, popups, frames', () => {
  let site: Site;
  let h: BrowserRuntime;
  const FILE = 'report body: 0123456789\n';
  const snapshot = async (tab: string, frame?: string): Promise<Snap> => {
    const r = await h.rt.call(envelope('browser.snapshot', { tab, ...(frame ? { frame } : {}) }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    return r.result as Snap;
  };
  const open = async (path: string): Promise<string> => {
    const r = await h.rt.call(envelope('browser.open', { url: `${site.origin}${path}` }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    return (r.result as { page: { tab: string } }).page.tab;
  };
  before(async () => {
    site = await Site.start({
      '/dl': html('<a href="/file.txt">Get report</a>'),
      '/file.txt': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' }).end(FILE),
      '/up': html(`<form method="post" action="/upload" enctype="multipart/form-data"><input type="file" name="f" data-testid="file"><button type="submit">Upload</button></form>`),
      '/upload': (_q, res, body) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${body.length} bytes</p>`),
      '/opener': html(`<button onclick="window.open('/popup')">Open popup</button>`),
      '/popup': html('<h1>Popup page</h1>'),
      '/framed': html('<h1>Outer</h1><iframe name="inner" src="/inner"></iframe>'),
      '/inner': html(`<button onclick="document.getElementById('o').textContent='inner clicked'">Inner</button><p id="o">waiting</p>`),
    });
    h = await browserRuntime();
  });
  after(async () => {
    await h.done();
    await site.close();
  });

  it('a download is an artifact marked untrusted with the exact bytes; nothing lands in the workspace', async () => {
    const tab = await open('/dl');
    const s = await snapshot(tab);
    const r = await h.rt.call(envelope('browser.download', { snapshot_id: s.snapshot_id, target: { role: 'link', name: 'Get report' } }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const d = (r.result as { download: { artifact: string; suggested_filename: string; size: number; untrusted: boolean } }).download;
    assert.equal(d.suggested_filename, 'report.txt');
    assert.equal(d.untrusted, true);
    assert.equal(h.rt.artifacts.get(d.artifact as never).toString('utf8'), FILE);
    assert.ok(r.artifacts.some((a) => a.digest === d.artifact && a.role.startsWith('browser_download_untrusted')));
    assert.deepEqual(readdirSync(h.workspace), []);
  });

  it('an upload names the path as a read resource, sends the bytes on the approved submission; a secret path is refused', async () => {
    writeFileSync(join(h.workspace, 'data.txt'), 'upload me please');
    writeFileSync(join(h.workspace, '.env'), 'API_TOKEN=sk-live-0123456789abcdef0123456789abcdef\n');
    const tab = await open('/up');
    const s = await snapshot(tab);
    // The file input, under whatever locator the snapshot gave it (Chromium names it a button "Choose File").
    const input = s.elements.find((e) => e.tag === 'input')?.locator;
    assert.ok(input, JSON.stringify(s.elements));
    const secret = await h.rt.call(envelope('browser.upload', { snapshot_id: s.snapshot_id, target: input, path: '.env' }));
    assert.equal(secret.error?.code, 'secret_path');
    const up = await h.rt.call(envelope('browser.upload', { snapshot_id: s.snapshot_id, target: input, path: 'data.txt' }));
    assert.equal(up.status, 'succeeded', JSON.stringify(up.error));
    assert.equal(up.normalized_action?.effect_class, 'send');
    assert.ok(up.normalized_action?.resources.some((x) => x.kind === 'path' && x.path === 'data.txt'));
    const first = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Upload' } }));
    assert.equal(first.error?.code, 'approval_required');
    await h.rt.approvals.approve(first.error?.data['approval_id'] as string, 'alice', Date.now());
    const sent = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Upload' } }));
    assert.equal(sent.status, 'succeeded', JSON.stringify(sent.error));
    const posted = site.requests.find((q) => q.url === '/upload');
    assert.match(posted?.body ?? '', /upload me please/);
    assert.doesNotMatch(posted?.body ?? '', /sk-live/);
  });

  it('a page that opens a popup: the popup is a new tab, snapshotted by its own id', async () => {
    const tab = await open('/opener');
    const s = await snapshot(tab);
    const r = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Open popup' } }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    let popup: { tab: string; url: string } | undefined;
    for (let i = 0; i < 100 && !popup; i++) {
      popup = (await snapshot(tab)).tabs.find((t) => t.url.endsWith('/popup'));
      if (!popup) await new Promise((x) => setTimeout(x, 100));
    }
    assert.ok(popup, 'the popup is listed as a tab');
    assert.notEqual(popup.tab, tab);
    const p = await snapshot(popup.tab);
    assert.match(p.tree, /Popup page/);
  });

  it('a frame: listed with its id, snapshotted and clicked in; a snapshot of the main frame does not reach into it', async () => {
    const tab = await open('/framed');
    const outer = await snapshot(tab);
    const inner = outer.frames.find((f) => f.name === 'inner');
    assert.ok(inner, JSON.stringify(outer.frames));
    const fs = await snapshot(tab, inner.frame);
    assert.match(fs.url, /\/inner$/);
    const wrong = await h.rt.call(envelope('browser.click', { snapshot_id: outer.snapshot_id, target: { role: 'button', name: 'Inner' } }));
    assert.equal(wrong.error?.code, 'stale_page_state');
    const r = await h.rt.call(envelope('browser.click', { snapshot_id: fs.snapshot_id, target: { role: 'button', name: 'Inner' } }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.match((await snapshot(tab, inner.frame)).tree, /inner clicked/);
  });
});
