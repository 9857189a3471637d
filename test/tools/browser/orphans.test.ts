// No Chromium outlives what owns it: a cancelled call ends the task's browser, and a runtime
// killed with SIGKILL takes its browser with it (bwrap --die-with-parent, pid namespace).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, tempDirs } from '../../support/fixtures.js';
import { createRuntime } from '../../../src/runtime/index.js';
import { browserRuntime, grant, html, POLICY, processesMentioning, Site, until, type BrowserRuntime } from './harness.js';

describe('browser: no orphaned Chromium', () => {
  let site: Site;
  let h: BrowserRuntime;
  before(async () => {
    site = await Site.start({ '/': html('<h1>Home</h1>'), '/hang': () => undefined });
    h = await browserRuntime();
  });
  after(async () => {
    await h.done();
    await site.close();
  });

  it('cancelling a navigation ends the browser: 0 Chromium processes of this state dir', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    assert.equal(open.status, 'succeeded', JSON.stringify(open.error));
    assert.ok(processesMentioning(h.state).length > 0, 'Chromium runs with a profile under the state dir');
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const ac = new AbortController();
    const pending = h.rt.call(envelope('browser.navigate', { tab, url: `${site.origin}/hang` }), { signal: ac.signal });
    await until(() => site.requests.some((r) => r.url === '/hang'));
    ac.abort();
    const r = await pending;
    assert.equal(r.status, 'cancelled');
    assert.ok(await until(() => processesMentioning(h.state).length === 0), `left: ${processesMentioning(h.state).join(',')}`);
    assert.ok(await until(() => readdirSync(join(h.state, 'browser')).length === 0), 'the profile is removed with the browser');
  });

  it('cancelling browser.open while Chromium starts: the browser is ended once it exists, 0 processes', async () => {
    const ac = new AbortController();
    const pending = h.rt.call(envelope('browser.open', { url: `${site.origin}/` }, { task_id: 'task-cancel-open' }), { signal: ac.signal });
    // Abort once the jail is up (its processes name the state dir), before or while the page loads.
    await until(() => processesMentioning(h.state).length > 0);
    ac.abort();
    const r = await pending;
    assert.equal(r.status, 'cancelled');
    assert.ok(await until(() => processesMentioning(h.state).length === 0), `left: ${processesMentioning(h.state).join(',')}`);
  });

  it('SIGKILL of a runtime process: its Chromium dies with it', async () => {
    const dirs = tempDirs('tg-browser-kill');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'kill-child.ts'), dirs.workspace, dirs.state, `${site.origin}/`], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      assert.ok(await until(() => out.includes('ready') || child.exitCode !== null, 90_000), out);
      assert.match(out, /ready/);
      assert.ok(processesMentioning(dirs.state).length > 0);
      child.kill('SIGKILL');
      await once(child, 'exit');
      assert.ok(await until(() => processesMentioning(dirs.state).length === 0), `left: ${processesMentioning(dirs.state).join(',')}`);
      // The killed runtime could not remove its profile (the task's cookies and storage); the next
      // browser of this state dir removes it, and leaves a live runtime's alone.
      const sessions = (): string[] => readdirSync(join(dirs.state, 'browser'));
      assert.equal(sessions().length, 1, 'the killed runtime left its session folder');
      const live = join(dirs.state, 'browser', `session-${process.ppid}-live`);
      mkdirSync(live);
      const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, grant: grant() as never, policies: [{ name: 'browser.cedar', text: POLICY }] });
      try {
        const open = await rt.call(envelope('browser.open', { url: `${site.origin}/` }));
        assert.equal(open.status, 'succeeded', JSON.stringify(open.error));
        assert.deepEqual(sessions().filter((n) => !n.startsWith(`session-${process.pid}-`)).sort(), [`session-${process.ppid}-live`]);
      } finally {
        await rt.close();
      }
    } finally {
      dirs.cleanup();
    }
  });
});
