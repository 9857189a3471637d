// The browser's jail, looked at from the host through /proc/<pid>/root of the Chromium
// processes: the workspace, the state dir (the store) and the home directory are empty to it,
// its network and pid namespaces are not the runtime's, and the profile is its own.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { envelope } from '../../support/fixtures.js';
import { browserRuntime, html, processesMentioning, Site, type BrowserRuntime } from './harness.js';

describe('browser: the jail', () => {
  let site: Site;
  let h: BrowserRuntime;
  before(async () => {
    site = await Site.start({ '/': html('<h1>Home</h1>') });
    h = await browserRuntime();
    writeFileSync(join(h.workspace, 'canary.txt'), 'workspace canary');
  });
  after(async () => {
    await h.done();
    await site.close();
  });

  it('Chromium cannot see the workspace, the state dir or home, and has its own network and pid namespaces', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    assert.equal(open.status, 'succeeded', JSON.stringify(open.error));
    const pids = processesMentioning(h.state).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/usr/lib/chromium/chromium'));
    assert.ok(pids.length > 0, 'Chromium processes found');
    // What the jail must hide exists on the host.
    assert.ok(existsSync(join(h.state, 'toolgate.db')) && existsSync(join(h.workspace, 'canary.txt')));
    for (const pid of pids) {
      const root = `/proc/${pid}/root`;
      let seen: boolean;
      try {
        seen = existsSync(join(root, 'usr/bin/chromium'));
      } catch {
        continue; // the process ended meanwhile
      }
      assert.ok(seen, 'the jail has the system (sanity: the view is readable)');
      assert.equal(existsSync(join(root, h.workspace, 'canary.txt')), false, 'workspace hidden');
      assert.equal(existsSync(join(root, h.state, 'toolgate.db')), false, 'store hidden');
      if (existsSync(join(homedir(), '.bashrc'))) assert.equal(existsSync(join(root, homedir(), '.bashrc')), false, 'home hidden');
      assert.notEqual(readlinkSync(`/proc/${pid}/ns/net`), readlinkSync('/proc/self/ns/net'), 'own network namespace');
      assert.notEqual(readlinkSync(`/proc/${pid}/ns/pid`), readlinkSync('/proc/self/ns/pid'), 'own pid namespace');
    }
  });
});
