import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ToolgateError } from '../../src/protocol/index.js';
import { Sandbox } from '../../src/sandbox/index.js';
import { BASE_ENV, newMarker, tempWorkspace, waitFor } from './fixtures.js';

async function sh(sb: Sandbox, dir: string, script: string, extra: Partial<Parameters<Sandbox['run']>[0]> = {}) {
  return sb.run({ argv: ['bash', '-c', script], cwd: dir, env: { ...BASE_ENV }, timeoutMs: 10_000, ...extra });
}

test('no capability is effective inside, although the runtime runs as root', async () => {
  const ws = tempWorkspace();
  try {
    const r = await sh(new Sandbox({ workspace: ws.dir }), ws.dir, 'grep -E "^Cap(Eff|Prm|Bnd):" /proc/self/status');
    assert.equal(r.exit_code, 0);
    assert.match(r.stdout.preview, /CapEff:\s+0000000000000000/);
    assert.match(r.stdout.preview, /CapPrm:\s+0000000000000000/);
    assert.match(r.stdout.preview, /CapBnd:\s+0000000000000000/);
    assert.equal(r.isolation.capabilities, 'none');
  } finally {
    ws.remove();
  }
});

for (const spare of [false, true]) {
  test(`only descriptors 0, 1 and 2 reach the command (spare: ${spare})`, async () => {
    const ws = tempWorkspace();
    const sb = new Sandbox({ workspace: ws.dir, spare });
    try {
      if (spare) {
        // The second run goes through the spare the first one left (when the host has a pids group).
        await sb.run({ argv: ['true'], cwd: ws.dir, env: BASE_ENV, timeoutMs: 30_000 });
        if (sb.host.cgroups.bases.pids) await waitFor(() => sb.spare?.ready === true, 20_000, 'the spare wrapper to be in its groups');
      }
      // The command's shell listed by its child while the shell waits for it: no pipe or
      // directory of the lister's own is counted. (Not a background child of the shell: until
      // it has started, bash's /dev/null for its stdin and the loader's files hold fd 3.)
      const r = await sh(sb, ws.dir, 'ls /proc/$$/fd > /tmp/fds; sort -n /tmp/fds | tr "\\n" " "; echo');
      assert.equal(r.stdout.preview, '0 1 2 \n');
    } finally {
      sb.close();
      ws.remove();
    }
  });
}

test('writes outside the workspace fail and leave nothing on the host; the workspace itself is writable', async () => {
  const ws = tempWorkspace();
  const outside = mkdtempSync('/var/tmp/tg-outside-');
  const tag = newMarker();
  try {
    const r = await sh(
      new Sandbox({ workspace: ws.dir }),
      ws.dir,
      `echo x > ${outside}/${tag} || echo denied-var; echo x > /etc/${tag} || echo denied-etc; echo x > /tmp/${tag} && echo private-tmp; echo inside > ${ws.dir}/made`,
    );
    assert.equal(r.exit_code, 0);
    assert.match(r.stdout.preview, /denied-var\ndenied-etc\nprivate-tmp\n/);
    assert.equal(existsSync(join(outside, tag)), false);
    assert.equal(existsSync(`/etc/${tag}`), false);
    assert.equal(existsSync(`/tmp/${tag}`), false, "the command's /tmp is private");
    assert.equal(readFileSync(join(ws.dir, 'made'), 'utf8'), 'inside\n');
  } finally {
    rmSync(outside, { recursive: true, force: true });
    ws.remove();
  }
});

test('a read-only workspace refuses writes', async () => {
  const ws = tempWorkspace();
  try {
    const r = await sh(new Sandbox({ workspace: ws.dir }), ws.dir, 'echo x > made', { workspaceWritable: false });
    assert.notEqual(r.exit_code, 0);
    assert.match(r.stderr.preview, /Read-only file system/);
    assert.equal(existsSync(join(ws.dir, 'made')), false);
    assert.equal(r.isolation.workspace, 'read-only');
  } finally {
    ws.remove();
  }
});

test('a planted ~/.ssh/id_rsa cannot be read, nor listed', async () => {
  const ws = tempWorkspace();
  const sshDir = join(homedir(), '.ssh');
  const createdDir = !existsSync(sshDir);
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  const key = join(sshDir, existsSync(join(sshDir, 'id_rsa')) ? `id_rsa_${newMarker()}` : 'id_rsa');
  const canary = newMarker();
  writeFileSync(key, `-----BEGIN OPENSSH PRIVATE KEY-----\n${canary}\n`, { mode: 0o600 });
  try {
    const r = await sh(new Sandbox({ workspace: ws.dir }), ws.dir, `cat ${key}; ls -a ${sshDir}`);
    assert.ok(!r.stdout.preview.includes(canary), 'the key content is not visible');
    assert.match(r.stderr.preview, /No such file or directory/);
    // Control: the same read from the host works, so the test can fail.
    assert.ok(readFileSync(key, 'utf8').includes(canary));
  } finally {
    rmSync(key, { force: true });
    if (createdDir) rmdirSync(sshDir);
    ws.remove();
  }
});

test('the state dir given to the sandbox is invisible inside; without it, it would be readable', async () => {
  const ws = tempWorkspace();
  const state = mkdtempSync('/var/tmp/tg-state-');
  const canary = newMarker();
  writeFileSync(join(state, 'toolgate.db'), canary);
  try {
    const hidden = await sh(new Sandbox({ workspace: ws.dir, hide: [state] }), ws.dir, `cat ${state}/toolgate.db; ls -a ${state}`);
    assert.ok(!hidden.stdout.preview.includes(canary));
    assert.match(hidden.stderr.preview, /No such file or directory/);
    const control = await sh(new Sandbox({ workspace: ws.dir }), ws.dir, `cat ${state}/toolgate.db`);
    assert.equal(control.stdout.preview, canary);
  } finally {
    rmSync(state, { recursive: true, force: true });
    ws.remove();
  }
});

test('a TCP connection to a 127.0.0.1 listener fails without network, and succeeds with network host', async () => {
  const ws = tempWorkspace();
  const received: string[] = [];
  const server: Server = createServer((sock) => sock.on('data', (d) => received.push(d.toString())));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const sb = new Sandbox({ workspace: ws.dir });
    const none = await sh(sb, ws.dir, `echo none > /dev/tcp/127.0.0.1/${port}`);
    assert.notEqual(none.exit_code, 0);
    assert.equal(none.isolation.network, 'none');
    const host = await sh(sb, ws.dir, `echo host > /dev/tcp/127.0.0.1/${port}`, { network: 'host' });
    assert.equal(host.exit_code, 0, host.stderr.preview);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(received, ['host\n']);
  } finally {
    await new Promise((r) => server.close(r));
    ws.remove();
  }
});

test('only the named environment reaches the command', async () => {
  const ws = tempWorkspace();
  try {
    const r = await new Sandbox({ workspace: ws.dir }).run({ argv: ['env'], cwd: ws.dir, env: { ...BASE_ENV, ONLY: 'this' }, timeoutMs: 10_000 });
    const names = r.stdout.preview.trim().split('\n').map((l) => l.split('=')[0]).sort();
    // bubblewrap sets PWD to the working directory; nothing else is added.
    assert.deepEqual(names, ['ONLY', 'PATH', 'PWD']);
  } finally {
    ws.remove();
  }
});

test('without bubblewrap a run is refused with isolation_unavailable unless process isolation is allowed', async () => {
  const ws = tempWorkspace();
  try {
    const strict = new Sandbox({ workspace: ws.dir, bwrapPath: null });
    let spawned = false;
    await assert.rejects(
      strict.run({ argv: ['true'], cwd: ws.dir, env: { ...BASE_ENV }, timeoutMs: 5_000, onSpawn: () => void (spawned = true) }),
      (e: unknown) => ToolgateError.isInstance(e) && e.code === 'isolation_unavailable',
    );
    assert.equal(spawned, false);
    const weak = await new Sandbox({ workspace: ws.dir, bwrapPath: null, allowProcessIsolation: true }).run({
      argv: ['sh', '-c', 'echo $$; exit 4'],
      cwd: ws.dir,
      env: { ...BASE_ENV },
      timeoutMs: 5_000,
    });
    assert.equal(weak.isolation.level, 'process');
    assert.equal(weak.exit_code, 4);
    assert.equal(weak.reason, 'exited');
  } finally {
    ws.remove();
  }
});

test('the wrapper shell sources no startup file outside the sandbox (BASH_ENV, ENV, ~/.bashrc on a socket stdin)', async () => {
  const ws = tempWorkspace();
  const outside = mkdtempSync('/var/tmp/tg-rc-');
  const hook = join(outside, 'hook.sh');
  writeFileSync(hook, `echo sourced > ${outside}/ran\n`);
  try {
    const r = await new Sandbox({ workspace: ws.dir }).run({
      argv: ['true'],
      cwd: ws.dir,
      env: { ...BASE_ENV, BASH_ENV: hook, ENV: hook },
      stdin: Buffer.from('x'),
      timeoutMs: 10_000,
    });
    assert.equal(r.exit_code, 0);
    assert.equal(existsSync(join(outside, 'ran')), false);
  } finally {
    rmSync(outside, { recursive: true, force: true });
    ws.remove();
  }
});

test('as root without capabilities, root-only system files (/etc/shadow) cannot be read inside', async () => {
  const ws = tempWorkspace();
  try {
    const r = await sh(new Sandbox({ workspace: ws.dir }), ws.dir, 'id -u; cat /etc/shadow');
    assert.equal(r.stdout.preview, '0\n', 'uid 0 inside, and no line of the file');
    assert.match(r.stderr.preview, /\/etc\/shadow: Permission denied/);
    assert.ok(readFileSync('/etc/shadow').length > 0, 'control: the host file has content');
  } finally {
    ws.remove();
  }
});

test("a root runtime runs commands as the workspace's owner when that is not root", async () => {
  const ws = tempWorkspace();
  const uid = 1000;
  chownSync(ws.dir, uid, uid);
  try {
    const r = await sh(new Sandbox({ workspace: ws.dir }), ws.dir, 'id -u; grep CapEff /proc/self/status; cat /etc/shadow >/dev/null 2>&1 || echo shadow-denied; echo "$(ls -A /root 2>/dev/null | wc -l) entries of /root"; echo made > f');
    assert.equal(r.exit_code, 0, r.stderr.preview);
    assert.match(r.stdout.preview, new RegExp(`^${uid}\\nCapEff:\\s+0+\\nshadow-denied\\n0 entries of /root\\n$`));
    assert.equal(r.isolation.uid, uid);
    assert.equal(statSync(join(ws.dir, 'f')).uid, uid);
    assert.equal(r.limits.processes.enforced_by, 'cgroup');
    chmodSync(ws.dir, 0o755); // root without CAP_DAC_OVERRIDE needs the permission bits to enter
    const self = await sh(new Sandbox({ workspace: ws.dir, runAs: 'self' }), ws.dir, 'id -u');
    assert.equal(self.stdout.preview, '0\n');
  } finally {
    ws.remove();
  }
});
