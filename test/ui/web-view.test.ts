// The web view end to end: a real runtime with real receipts (seed.ts), the ui server on
// loopback, and Debian's Chromium loading it with the token. Tests run in order on one store:
// the approval and the settlements change it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { serveUi, type UiServing } from '../../src/ui/index.js';
import { envelope } from '../support/fixtures.js';
import { launch, layoutOf, overlaps, screenshotDir } from './browser.js';
import { seededRuntime, TASKS, type Seeded } from './seed.js';

const TOKEN = 'ui-test-token-0123456789abcdef';
const SECRET = 'AKIAIOSFODNN7EXAMPLE';
const PANELS = ['#audit', '#tasks', '#approvals', '#unsettled', '#denials', '#timeline'] as const;
const WAIT = { timeout: 30_000 };

/** A raw request to the server, with whatever headers a test wants (an attacker's view). */
function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A POST from inside the page (same origin, the page's own token), as the page's code would send it. */
function pagePost(page: Page, path: string, body: unknown): Promise<{ status: number; code: string | null }> {
  return page.evaluate(
    async ({ path, body }) => {
      const res = await fetch(`/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${(globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('toolgate-ui-token') ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { error?: { code?: string } };
      return { status: res.status, code: json.error?.code ?? null };
    },
    { path, body },
  );
}

describe('toolgate ui in Chromium', { timeout: 240_000 }, () => {
  let s: Seeded;
  let ui: UiServing;
  let browser: Browser;
  let page: Page;

  before(async () => {
    s = await seededRuntime();
    ui = await serveUi(s.rt, { port: 0, token: TOKEN, operator: 'ui-test' });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  after(async () => {
    await browser?.close();
    await ui?.close();
    await s?.done();
  });

  it('loads with the token, drops it from the address bar, and shows a task timeline with action, decision, durations, truncation, redactions, artifacts and the diff', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // A CSP refusal (a script, a style, the import map) or a failed load shows up here.
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    await page.goto(ui.openUrl);
    await page.locator(`#tasks a[data-task="${TASKS.build}"]`).click(WAIT);
    const receipts = page.locator('#timeline li.receipt');
    await receipts.nth(5).waitFor(WAIT);
    assert.equal(await receipts.count(), 6);
    assert.equal(new URL(page.url()).hash, '', 'the token is gone from the address bar');

    const patch = page.locator(`li.receipt[data-receipt="${s.receipts['patch']?.receipt_id}"]`);
    assert.match(await patch.locator('.action').innerText(), /write src\/app\.ts/);
    assert.match(await patch.locator('.decision').innerText(), /allow/);
    assert.equal(await patch.locator('.decision code').first().getAttribute('title'), s.rt.policy.policyVersion, 'the policy version of the decision');
    assert.match(await patch.locator('pre.diff .del').innerText(), /return "hello " \+ name;/);
    assert.match(await patch.locator('pre.diff .add').innerText(), /return `hello, \$\{name\}!`;/);
    assert.match(await patch.innerText(), /kept for undo/, 'the preimage is named, not opened');
    assert.equal(await patch.locator('button.open').count(), 0);

    const shell = page.locator(`li.receipt[data-receipt="${s.receipts['shell']?.receipt_id}"]`);
    assert.match(await shell.innerText(), /truncated/);
    assert.match(await shell.locator('.redactions').innerText(), /aws-access-key-id ×1/);
    assert.match(await shell.innerText(), /\d+ ms/, 'a duration');
    await shell.locator('button.open').click();
    const viewer = page.locator('#artifact-view pre');
    await viewer.waitFor(WAIT);
    assert.match(await viewer.innerText(), /\n99999\n/);
    assert.doesNotMatch(await viewer.innerText(), new RegExp(SECRET));
    await page.locator('#artifact-view button', { hasText: 'close' }).click();
    await viewer.waitFor({ state: 'detached', ...WAIT });

    const denied = page.locator(`li.receipt[data-receipt="${s.receipts['vendor3']?.receipt_id}"]`);
    assert.match(await denied.innerText(), /repeated_denial/);
    assert.match(await denied.locator('.decision').innerText(), /vendor\/ is read-only/);

    assert.doesNotMatch(await page.content(), new RegExp(`${SECRET}|${TOKEN}`), 'no secret and no token in the page');
    assert.deepEqual(errors, []);
  });

  it('lists denials with the repeated one marked, and the audit verdict', async () => {
    const row = page.locator('#denials tr.repeated');
    await row.waitFor(WAIT);
    assert.equal(await row.count(), 1);
    assert.match(await row.locator('td.times').innerText(), /^3\s+repeated/);
    assert.match(await page.locator('#audit .verdict').innerText(), /^chain ok: \d+ receipts in 3 tasks/);
  });

  it('screenshots: no element overflows the viewport, the key panels have size and do not overlap (wide and narrow)', async () => {
    const dir = screenshotDir();
    for (const [name, width] of [['ui-overview', 1280], ['ui-narrow', 700]] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.locator('#timeline li.receipt').first().waitFor(WAIT);
      const layout = await layoutOf(page, PANELS);
      assert.deepEqual(layout.overflowing, [], `${name}: elements past the viewport`);
      assert.ok(layout.scrollWidth <= layout.viewportWidth, `${name}: page scrolls sideways (${layout.scrollWidth} > ${layout.viewportWidth})`);
      for (const p of layout.panels) {
        assert.ok(p.w > 100 && p.h > 30, `${name}: ${p.sel} has no size (${p.w}×${p.h})`);
        assert.ok(p.x >= 0 && p.x + p.w <= layout.viewportWidth + 1, `${name}: ${p.sel} leaves the viewport`);
      }
      assert.deepEqual(overlaps(layout.panels), [], `${name}: panels overlap`);
      // The stylesheet is in force: two columns when wide (the side panels left of the main ones), one when narrow.
      const [audit, approvals] = [layout.panels[0], layout.panels[2]];
      assert.ok(audit && approvals);
      if (width >= 1000) assert.ok(audit.x + audit.w <= approvals.x, `${name}: the side column is not beside the main one`);
      else assert.ok(audit.y + audit.h <= approvals.y && Math.abs(audit.x - approvals.x) < 1, `${name}: the panels are not stacked`);
      await page.evaluate('window.scrollTo(0, 0)');
      const file = join(dir, `${name}.png`);
      await page.screenshot({ path: file });
      assert.ok(readFileSync(file).subarray(1, 4).toString() === 'PNG');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('#approvals').screenshot({ path: join(dir, 'ui-approvals.png') });
    await page.locator(`li.receipt[data-receipt="${s.receipts['patch']?.receipt_id}"]`).screenshot({ path: join(dir, 'ui-receipt-diff.png') });
  });

  it('refuses an approve POST that carries another action digest: nothing is decided', async () => {
    const other = await s.rt.call(envelope('fs.write', { path: 'deploy/other.json', content: '{}\n', create_parents: true }, { task_id: TASKS.deploy }));
    const otherId = other.error?.data['approval_id'] as string;
    assert.equal(typeof otherId, 'string');
    const first = await s.rt.approvals.get(s.approvalId);
    const swapped = await pagePost(page, `/approvals/${otherId}`, { decision: 'approve', action_digest: first?.action_digest });
    assert.deepEqual(swapped, { status: 409, code: 'precondition_failed' });
    const missing = await pagePost(page, `/approvals/${otherId}`, { decision: 'approve' });
    assert.deepEqual(missing, { status: 400, code: 'invalid_request' });
    assert.equal((await s.rt.approvals.get(otherId))?.status, 'pending');
    assert.equal((await s.rt.approvals.get(s.approvalId))?.status, 'pending');
    // Leave one pending approval for the next test: this one is denied through the API.
    assert.equal((await pagePost(page, `/approvals/${otherId}`, { decision: 'deny', action_digest: (await s.rt.approvals.get(otherId))?.action_digest })).status, 200);
    assert.equal((await s.rt.approvals.get(otherId))?.status, 'denied');
  });

  it('approves a pending approval from the page; the re-issued call then succeeds, once', async () => {
    await page.locator('#refresh').click();
    const card = page.locator(`article.approval[data-approval="${s.approvalId}"]`);
    await card.waitFor(WAIT);
    assert.match(await card.innerText(), /create deploy\/prod\.json/);
    assert.equal(existsSync(join(s.workspace, 'deploy', 'prod.json')), false);
    await card.locator('button.approve').click();
    await card.waitFor({ state: 'detached', ...WAIT });
    const record = await s.rt.approvals.get(s.approvalId);
    assert.equal(record?.status, 'approved');
    assert.equal(record?.decided_by, 'ui-test');
    const retry = await s.rt.call(s.deployCall);
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    assert.equal(readFileSync(join(s.workspace, 'deploy', 'prod.json'), 'utf8'), '{"replicas": 3}\n');
    const again = await pagePost(page, `/approvals/${s.approvalId}`, { decision: 'approve', action_digest: record?.action_digest });
    assert.deepEqual(again, { status: 409, code: 'precondition_failed' }, 'a decided approval is not decided twice');
  });

  it('shows ambiguous effects with their age; Reconcile settles what the tool can tell, a person settles the rest with a reason', async () => {
    await page.locator('#refresh').click();
    const effects = page.locator('#unsettled article.effect');
    await effects.nth(1).waitFor(WAIT);
    assert.match(await effects.first().locator('.age').innerText(), /^age \d+[smhd]$/);
    await page.locator('#unsettled button.reconcile').click();
    await effects.nth(1).waitFor({ state: 'detached', ...WAIT });
    assert.deepEqual((await s.rt.listUnsettled()).map((e) => e.idempotency_key), ['publish-2']);

    const left = page.locator('#unsettled article.effect[data-effect="k:publish-2"]');
    assert.equal(await left.locator('button', { hasText: 'It did not' }).isDisabled(), true, 'no settlement without a reason');
    await left.locator('input.reason').fill('checked the provider: nothing was published');
    await left.locator('button', { hasText: 'It did not' }).click();
    await left.waitFor({ state: 'detached', ...WAIT });
    assert.deepEqual(await s.rt.listUnsettled(), []);
    const settling = (await s.rt.store.listReceipts({ task: TASKS.flaky as never, limit: 10 })).filter((r) => r.evidence['reconciliation'] !== undefined);
    assert.equal(settling.length, 2);
    assert.match(JSON.stringify(settling), /checked the provider: nothing was published/);
  });

  it('refuses a missing or wrong token: the page shows the refusal, the API answers 401', async () => {
    const context = await browser.newContext();
    try {
      const p = await context.newPage();
      await p.goto(ui.url);
      await p.locator('#refused').waitFor(WAIT);
      await p.goto(`${ui.url}#token=${'x'.repeat(TOKEN.length)}`);
      await p.reload();
      await p.locator('#refused').waitFor(WAIT);
      assert.equal(await p.locator('#approvals').count(), 0);
    } finally {
      await context.close();
    }
    const api = `${ui.url}api/overview`;
    for (const authorization of [undefined, `Bearer ${TOKEN.slice(0, -1)}x`, `Bearer ${TOKEN}x`, TOKEN, 'Bearer ']) {
      const res = await raw(api, { headers: authorization === undefined ? {} : { authorization } });
      assert.equal(res.status, 401, String(authorization));
      assert.doesNotMatch(res.body, /task-build/);
    }
    assert.equal((await raw(api, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
    assert.equal((await raw(`${ui.url}api/tasks/%E0%A4%A`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 400, 'a malformed path is a usage fault, not a crash');
  });

  it('refuses another Host (DNS rebinding) and a cross-origin POST, even with the token: 0 decisions made', async () => {
    const pending = await s.rt.call(envelope('fs.write', { path: 'deploy/third.json', content: '{}\n', create_parents: true }, { task_id: TASKS.deploy }));
    const id = pending.error?.data['approval_id'] as string;
    const digest = (await s.rt.approvals.get(id))?.action_digest as string;
    const body = JSON.stringify({ decision: 'approve', action_digest: digest });
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const rebound = await raw(`${ui.url}api/approvals/${id}`, { method: 'POST', headers: { ...auth, host: `evil.example:${ui.port}` }, body });
    assert.equal(rebound.status, 403);
    const crossOrigin = await raw(`${ui.url}api/approvals/${id}`, { method: 'POST', headers: { ...auth, origin: 'http://evil.example' }, body });
    assert.equal(crossOrigin.status, 403);
    const notJson = await raw(`${ui.url}api/approvals/${id}`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body });
    assert.equal(notJson.status, 400);
    assert.equal((await s.rt.approvals.get(id))?.status, 'pending');
  });

  it('serves every response with the CSP and without caching; static files hold no data', async () => {
    for (const path of ['', 'app.js', 'vendor/preact.mjs', 'api/overview']) {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(`${ui.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }, (r) => {
          r.resume();
          resolve(r);
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(res.statusCode, 200, path);
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'; script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/, path);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['cache-control'], 'no-store');
    }
    const page0 = await raw(ui.url, {});
    assert.doesNotMatch(page0.body, /task-|rcpt_|apr_/);
  });

  it('shows a broken audit chain when a receipt was rewritten in the database, naming the task and the receipt', async () => {
    await page.locator('#audit.ok').waitFor(WAIT);
    const victim = s.receipts['write']?.receipt_id as string;
    // What someone with write access to the file can do: drop the append-only trigger, rewrite.
    const db = new Database(join(s.rt.stateDir, 'toolgate.db'));
    try {
      db.exec('DROP TRIGGER receipts_immutable_update');
      assert.equal(db.prepare(`UPDATE receipts SET body = replace(body, '"succeeded"', '"failed"') WHERE receipt_id = ?`).run(victim).changes, 1);
    } finally {
      db.close();
    }
    await page.locator('#audit button.verify').click();
    await page.locator('#audit.broken').waitFor(WAIT);
    assert.match(await page.locator('#audit .verdict').innerText(), /^CHAIN BROKEN: /);
    assert.match(await page.locator('#audit .broken-link').innerText(), new RegExp(`^task ${TASKS.build}: receipt #1 `));
  });
});
