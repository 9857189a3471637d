import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PathClassifier } from '../../src/resources/index.js';
import { Sandbox, ScanCache, scanWorkspace } from '../../src/sandbox/index.js';
import { BASE_ENV, tempWorkspace } from './fixtures.js';

const ROOT = { uid: 0, gid: 0 };
const classify = (rel: string) => new PathClassifier().classify(rel);

test('the scan lists secret files and dirs to mask, every .git and the gitdir of a gitfile to keep read-only, and skips links', () => {
  const ws = tempWorkspace('tg-scan-');
  try {
    mkdirSync(join(ws.dir, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(ws.dir, '.git', 'hooks', 'x.pem'), ''); // inside .git: covered by its bind
    mkdirSync(join(ws.dir, 'mod', 'gitdir'), { recursive: true });
    mkdirSync(join(ws.dir, 'sub'), { recursive: true });
    writeFileSync(join(ws.dir, 'sub', '.git'), 'gitdir: ../mod/gitdir\n');
    writeFileSync(join(ws.dir, 'sub', '.env'), 's');
    mkdirSync(join(ws.dir, 'home', '.ssh'), { recursive: true });
    writeFileSync(join(ws.dir, 'home', '.ssh', 'id_rsa'), 'k');
    symlinkSync('/etc/hostname', join(ws.dir, 'link.key'));
    writeFileSync(join(ws.dir, 'toolgate.config.json'), '{}');
    const m = scanWorkspace(ws.dir, { classify, user: ROOT });
    assert.deepEqual([...m.readOnly].sort(), [join(ws.dir, '.git'), join(ws.dir, 'mod', 'gitdir'), join(ws.dir, 'sub', '.git'), join(ws.dir, 'toolgate.config.json')].sort());
    assert.deepEqual(m.maskFiles, [join(ws.dir, 'sub', '.env')]);
    assert.deepEqual(m.maskDirs, [join(ws.dir, 'home', '.ssh')]);
    assert.throws(() => scanWorkspace(ws.dir, { classify, user: ROOT, limits: { maxEntries: 3, maxMounts: 100 } }), { code: 'limit_exceeded' });
    assert.throws(() => scanWorkspace(ws.dir, { classify, user: ROOT, limits: { maxEntries: 100, maxMounts: 2 } }), { code: 'limit_exceeded' });
  } finally {
    ws.remove();
  }
});

test("run as the workspace's owner, secrets are masked where it can walk and a directory it cannot enter does not break the run", async () => {
  const ws = tempWorkspace('tg-scan-');
  const uid = 1000;
  try {
    mkdirSync(join(ws.dir, 'a'));
    writeFileSync(join(ws.dir, 'a', '.env'), 'tgsecret-owner\n');
    mkdirSync(join(ws.dir, 'closed'));
    writeFileSync(join(ws.dir, 'closed', '.env'), 'root only\n');
    chownSync(ws.dir, uid, uid);
    chownSync(join(ws.dir, 'a'), uid, uid);
    chownSync(join(ws.dir, 'a', '.env'), uid, uid);
    chmodSync(join(ws.dir, 'closed'), 0o700); // root's: bubblewrap as uid 1000 could not mount there
    const r = await new Sandbox({ workspace: ws.dir }).run({ argv: ['sh', '-c', 'id -u; cat a/.env; cat closed/.env; echo done'], cwd: ws.dir, env: { ...BASE_ENV }, timeoutMs: 10_000 });
    assert.equal(r.isolation.uid, uid);
    assert.equal(r.reason, 'exited', r.notes.join('; '));
    assert.equal(r.stdout.preview, `${uid}\ndone\n`);
    assert.match(r.stderr.preview, /a\/\.env: Permission denied/);
    assert.match(r.stderr.preview, /closed\/\.env: Permission denied/);
  } finally {
    ws.remove();
  }
});

const sorted = (m: { readOnly: readonly string[]; maskFiles: readonly string[]; maskDirs: readonly string[] }) => ({ readOnly: [...m.readOnly].sort(), maskFiles: [...m.maskFiles].sort(), maskDirs: [...m.maskDirs].sort() });

test('a cached scan finds what an uncached one finds, and sees every entry added, removed or replaced since', async () => {
  const ws = tempWorkspace('tg-scan-cache-');
  try {
    mkdirSync(join(ws.dir, 'src', 'deep'), { recursive: true });
    mkdirSync(join(ws.dir, 'cfg'), { recursive: true });
    writeFileSync(join(ws.dir, 'src', 'a.ts'), '');
    writeFileSync(join(ws.dir, 'cfg', '.env'), 's');
    const cache = new ScanCache();
    const scan = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT, cache }));
    const fresh = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT }));
    // Directories changed within the last second are read again each time (coarse file times).
    assert.deepEqual(scan(), fresh());
    assert.equal(cache.size, 0, 'every directory was just made: none is kept');
    await new Promise((r) => setTimeout(r, 1_100));
    assert.deepEqual(scan(), fresh());
    assert.equal(cache.size, 4, 'the root, src, src/deep and cfg are kept');
    assert.deepEqual(scan(), fresh(), 'from the cache');

    writeFileSync(join(ws.dir, 'src', 'deep', 'id.pem'), 'k'); // added in a cached directory
    mkdirSync(join(ws.dir, 'src', '.ssh')); // a secret directory
    rmSync(join(ws.dir, 'cfg', '.env')); // removed
    writeFileSync(join(ws.dir, 'cfg', 'x'), '');
    renameSync(join(ws.dir, 'cfg', 'x'), join(ws.dir, 'cfg', 'server.key')); // renamed into a secret name
    const after = scan();
    assert.deepEqual(after, fresh());
    assert.deepEqual(after.maskFiles, [join(ws.dir, 'cfg', 'server.key'), join(ws.dir, 'src', 'deep', 'id.pem')]);
    assert.deepEqual(after.maskDirs, [join(ws.dir, 'src', '.ssh')]);
    rmSync(join(ws.dir, 'src', 'deep'), { recursive: true });
    writeFileSync(join(ws.dir, 'src', 'deep'), ''); // a directory replaced by a file
    assert.deepEqual(scan(), fresh());
    symlinkSync('/etc', join(ws.dir, 'cfg', '.git')); // a protected link still refuses the run
    assert.throws(() => scan(), { code: 'unsupported' });
  } finally {
    ws.remove();
  }
});
