import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PathClassifier } from '../../src/resources/index.js';
import { Sandbox, scanWorkspace } from '../../src/sandbox/index.js';
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
