import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PathClassifier } from '../../src/resources/index.js';
import { Sandbox, SCAN_SLICE, ScanCache, scanWorkspace, scanWorkspacePaced } from '../../src/sandbox/index.js';
import { BASE_ENV, tempWorkspace } from './fixtures.js';
import { inotifyWatches } from '../support/inotify.js';

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

for (const watch of [false, true]) {
  test(`a cached scan (${watch ? 'watched with inotify' : 'signatures only'}) finds what an uncached one finds, and sees every entry added, removed or replaced since`, async () => {
    const ws = tempWorkspace('tg-scan-cache-');
    const cache = new ScanCache({ watch });
    try {
      mkdirSync(join(ws.dir, 'src', 'deep'), { recursive: true });
      mkdirSync(join(ws.dir, 'cfg'), { recursive: true });
      writeFileSync(join(ws.dir, 'src', 'a.ts'), '');
      writeFileSync(join(ws.dir, 'cfg', '.env'), 's');
      const scan = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT, cache }));
      const fresh = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT }));
      assert.deepEqual(scan(), fresh());
      assert.equal(cache.watching, watch);
      if (!watch) {
        // Directories changed within the last second are read again each time (coarse file times).
        assert.equal(cache.size, 0, 'every directory was just made: none is kept');
        await new Promise((r) => setTimeout(r, 1_100));
        assert.deepEqual(scan(), fresh());
      }
      // Watched, a listing is kept at once: its watch was added before it was read.
      assert.equal(cache.size, 4, 'the root, src, src/deep and cfg are kept');
      assert.deepEqual(scan(), fresh(), 'from the cache');
      assert.deepEqual(cache.lastScan, watch ? { listed: 0, checked: 0, reused: 4 } : { listed: 0, checked: 4, reused: 0 });

      writeFileSync(join(ws.dir, 'src', 'deep', 'id.pem'), 'k'); // added in a cached directory
      mkdirSync(join(ws.dir, 'src', '.ssh')); // a secret directory
      rmSync(join(ws.dir, 'cfg', '.env')); // removed
      writeFileSync(join(ws.dir, 'cfg', 'x'), '');
      renameSync(join(ws.dir, 'cfg', 'x'), join(ws.dir, 'cfg', 'server.key')); // renamed into a secret name
      const after = scan();
      assert.deepEqual(after, fresh());
      assert.deepEqual(after.maskFiles, [join(ws.dir, 'cfg', 'server.key'), join(ws.dir, 'src', 'deep', 'id.pem')]);
      assert.deepEqual(after.maskDirs, [join(ws.dir, 'src', '.ssh')]);
      if (watch) assert.deepEqual(cache.lastScan, { listed: 3, checked: 3, reused: 1 }, 'src, src/deep and cfg read again; the root taken as it was');
      rmSync(join(ws.dir, 'src', 'deep'), { recursive: true });
      writeFileSync(join(ws.dir, 'src', 'deep'), ''); // a directory replaced by a file
      assert.deepEqual(scan(), fresh());
      symlinkSync('/etc', join(ws.dir, 'cfg', '.git')); // a protected link still refuses the run
      assert.throws(() => scan(), { code: 'unsupported' });
    } finally {
      cache.close();
      ws.remove();
    }
  });
}

test('a watched scan sees directories moved in, out and around, a change made just before it, and what a chmod opens', () => {
  const ws = tempWorkspace('tg-scan-watch-');
  const outside = tempWorkspace('tg-scan-outside-');
  const cache = new ScanCache({ watch: true });
  const owner = { uid: 1000, gid: 1000 };
  try {
    mkdirSync(join(ws.dir, 'a', 'b', 'c'), { recursive: true });
    writeFileSync(join(ws.dir, 'a', 'b', 'c', 'id_rsa'), 'k');
    mkdirSync(join(ws.dir, 'closed', 'inner'), { recursive: true });
    writeFileSync(join(ws.dir, 'closed', 'inner', '.env'), 's');
    chmodSync(join(ws.dir, 'closed'), 0o700); // root's: the owner cannot enter it
    mkdirSync(join(outside.dir, 'pkg', 'conf'), { recursive: true });
    writeFileSync(join(outside.dir, 'pkg', 'conf', 'app.pem'), 'k');
    for (const d of [ws.dir, join(ws.dir, 'a'), join(ws.dir, 'a', 'b'), join(ws.dir, 'a', 'b', 'c')]) chownSync(d, owner.uid, owner.gid);
    const scan = (user = ROOT) => sorted(scanWorkspace(ws.dir, { classify, user, cache }));
    const fresh = (user = ROOT) => sorted(scanWorkspace(ws.dir, { classify, user }));
    assert.deepEqual(scan(), fresh());
    assert.deepEqual(scan(owner), fresh(owner));
    assert.deepEqual(scan(owner).maskFiles, [join(ws.dir, 'a', 'b', 'c', 'id_rsa')], 'closed/ is not walked for the owner');

    renameSync(join(ws.dir, 'a', 'b'), join(ws.dir, 'moved')); // a subtree moved up: its secret at a new path
    assert.deepEqual(scan(), fresh());
    assert.deepEqual(scan().maskFiles, [join(ws.dir, 'closed', 'inner', '.env'), join(ws.dir, 'moved', 'c', 'id_rsa')]);
    renameSync(join(outside.dir, 'pkg'), join(ws.dir, 'moved', 'c', 'pkg')); // moved in from outside
    assert.deepEqual(scan().maskFiles, [join(ws.dir, 'closed', 'inner', '.env'), join(ws.dir, 'moved', 'c', 'id_rsa'), join(ws.dir, 'moved', 'c', 'pkg', 'conf', 'app.pem')]);
    renameSync(join(ws.dir, 'moved', 'c'), join(outside.dir, 'c')); // moved out
    assert.deepEqual(scan(), fresh());
    assert.deepEqual(scan().maskFiles, [join(ws.dir, 'closed', 'inner', '.env')]);

    chmodSync(join(ws.dir, 'closed'), 0o755); // the owner can walk it now: its secret is masked for the owner too
    assert.deepEqual(scan(owner), fresh(owner));
    assert.deepEqual(scan(owner).maskFiles, [join(ws.dir, 'closed', 'inner', '.env')]);
    chmodSync(join(ws.dir, 'closed'), 0o700);
    assert.deepEqual(scan(owner), fresh(owner));

    // A secret made a moment before the scan, in a directory read a moment before it: no
    // coarse clock to wait out, the event is queued by the system call that made it.
    for (let i = 0; i < 20; i++) {
      scan();
      writeFileSync(join(ws.dir, 'a', `k${i}.key`), 'k');
      assert.ok(scan().maskFiles.includes(join(ws.dir, 'a', `k${i}.key`)), `round ${i}`);
    }
    assert.equal(cache.watching, true);
  } finally {
    cache.close();
    ws.remove();
    outside.remove();
  }
});

test('a watched scan whose events overflowed the queue reads everything again and stops watching', () => {
  const ws = tempWorkspace('tg-scan-overflow-');
  const cache = new ScanCache({ watch: true });
  try {
    mkdirSync(join(ws.dir, 'many'));
    mkdirSync(join(ws.dir, 'other'));
    const scan = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT, cache }));
    scan();
    assert.equal(cache.watching, true);
    // More events than the kernel queues (fs.inotify.max_queued_events, 16,384 by default).
    const queued = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    for (let i = 0; i <= queued; i++) writeFileSync(join(ws.dir, 'many', `f${i}`), '');
    writeFileSync(join(ws.dir, 'other', '.env'), 's'); // an event the queue had no room for
    const after = scan();
    assert.equal(cache.watching, false);
    assert.deepEqual(after.maskFiles, [join(ws.dir, 'other', '.env')]);
    assert.deepEqual(cache.lastScan, { listed: 3, checked: 3, reused: 0 }, 'every directory read again');
  } finally {
    cache.close();
    ws.remove();
  }
});

test('a watched scan sees a file system mounted on a directory it had read (a mount raises no inotify event)', () => {
  const ws = tempWorkspace('tg-scan-mount-');
  const cache = new ScanCache({ watch: true });
  let mounted = false;
  try {
    mkdirSync(join(ws.dir, 'mnt'));
    const scan = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT, cache }));
    assert.deepEqual(scan().maskFiles, []);
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', join(ws.dir, 'mnt')]);
    mounted = true;
    writeFileSync(join(ws.dir, 'mnt', '.env'), 's'); // in the mounted file system: no event on the watched directory
    assert.deepEqual(scan().maskFiles, [join(ws.dir, 'mnt', '.env')]);
    assert.equal(cache.watching, true);
  } finally {
    if (mounted) execFileSync('umount', [join(ws.dir, 'mnt')]);
    cache.close();
    ws.remove();
  }
});

test('a watched scan refused midway keeps what it read: the next scan still masks a secret found before the refusal', () => {
  const ws = tempWorkspace('tg-scan-refused-');
  const cache = new ScanCache({ watch: true });
  try {
    mkdirSync(join(ws.dir, 'a', 'b'), { recursive: true });
    const scan = () => sorted(scanWorkspace(ws.dir, { classify, user: ROOT, cache }));
    assert.deepEqual(scan().maskFiles, []);
    // `a` is read again (an event) and holds a secret; then `b`, below it, refuses the run.
    writeFileSync(join(ws.dir, 'a', '.env'), 's');
    symlinkSync('/etc', join(ws.dir, 'a', 'b', '.git'));
    assert.throws(() => scan(), { code: 'unsupported' });
    // The link goes: only `b` has an event now. `a` must be taken as it was last read (with the
    // secret), not as the scan before the refusal had it.
    rmSync(join(ws.dir, 'a', 'b', '.git'));
    assert.deepEqual(scan().maskFiles, [join(ws.dir, 'a', '.env')]);
  } finally {
    cache.close();
    ws.remove();
  }
});


test('a watched scan ends the watches of directories it no longer walks', () => {
  const ws = tempWorkspace('tg-scan-unwatch-');
  const outside = tempWorkspace('tg-scan-unwatch-out-');
  const cache = new ScanCache({ watch: true });
  try {
    mkdirSync(join(ws.dir, 'a', 'b', 'c'), { recursive: true });
    const before = inotifyWatches();
    scanWorkspace(ws.dir, { classify, user: ROOT, cache });
    assert.equal(inotifyWatches(), before + 4, 'the root, a, a/b and a/b/c');
    renameSync(join(ws.dir, 'a', 'b'), join(outside.dir, 'b')); // moved out: still there, not walked
    scanWorkspace(ws.dir, { classify, user: ROOT, cache });
    assert.equal(inotifyWatches(), before + 2, 'the root and a');
  } finally {
    cache.close();
    ws.remove();
    outside.remove();
  }
});

test('a paced scan gives the same lists as the whole scan and lets the event loop run every SCAN_SLICE directories; scans of one cache take turns', async () => {
  const ws = tempWorkspace('tg-scan-paced-');
  try {
    for (let i = 0; i < 1_000; i++) mkdirSync(join(ws.dir, `p${i % 40}`, `d${i}`), { recursive: true });
    for (let i = 0; i < 1_000; i += 97) writeFileSync(join(ws.dir, `p${i % 40}`, `d${i}`, '.env'), 's');
    mkdirSync(join(ws.dir, 'p3', '.git'));
    const whole = scanWorkspace(ws.dir, { classify, user: ROOT });
    let pauses = 0;
    const counted = async (): Promise<void> => void pauses++;
    const first = new ScanCache();
    let walks = 0;
    const begin = first.begin.bind(first);
    first.begin = (root: string): void => {
      walks++;
      begin(root);
    };
    try {
      const paced = await scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache: first }, counted);
      assert.deepEqual(paced, whole, 'the same lists, in the same order');
      assert.equal(pauses, Math.floor(1_041 / SCAN_SLICE), 'the root, 40 + 1,000 directories');
      assert.equal(walks, 2, 'a scan that paused is followed by a whole walk');
      // Unchanged since: every directory is taken as kept, in one go, and walked once.
      pauses = 0;
      walks = 0;
      assert.deepEqual(await scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache: first }, counted), whole);
      assert.deepEqual([pauses, walks], [0, 1], 'an unchanged tree: no pause, no second walk');
    } finally {
      first.close();
    }

    // Two paced scans of one cache at once: the second starts when the first has ended (it finds
    // the listings watched and clean); both give the lists of a fresh scan.
    const cache = new ScanCache();
    try {
      const seen: string[] = [];
      const pause = async (): Promise<void> => {
        seen.push(cache.scanning ? 'scanning' : 'idle');
        await new Promise((resolve) => setImmediate(resolve));
      };
      const [a, b] = await Promise.all([scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache }, pause), scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache }, pause)]);
      assert.deepEqual(a, whole);
      assert.deepEqual(b, whole);
      assert.equal(cache.lastScan.reused, 1_041, 'the second scan reused what the first read');
      assert.ok(seen.every((s) => s === 'scanning'));
      // A whole scan while a paced one is between turns would interleave with it: refused.
      const running = scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache: new ScanCache({ watch: false }) }, pause);
      const other = new ScanCache({ watch: false });
      const half = scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache: other }, () => new Promise((resolve) => setImmediate(resolve)));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(other.scanning, true);
      assert.throws(() => scanWorkspace(ws.dir, { classify, user: ROOT, cache: other }), { code: 'internal_error' });
      await Promise.all([running, half]);
    } finally {
      cache.close();
    }
  } finally {
    ws.remove();
  }
});

test('Sandbox.run scans a large workspace between turns of the event loop (its first scan held it 360 ms in 20,000 directories)', async () => {
  const ws = tempWorkspace('tg-scan-turns-');
  const sandbox = new Sandbox({ workspace: ws.dir, watchWorkspace: true });
  try {
    for (let i = 0; i < 2_000; i++) mkdirSync(join(ws.dir, `p${i % 50}`, `d${i}`), { recursive: true });
    const before = inotifyWatches();
    const total = 2_051; // the root, 50 + 2,000 directories: one watch each once scanned
    // Each turn of the event loop while the command runs counts the watches added so far: a scan
    // that lets the loop run is seen half done.
    const seen: number[] = [];
    let done = false;
    const spin = (): void => {
      if (done) return;
      seen.push(inotifyWatches() - before);
      setImmediate(spin);
    };
    setImmediate(spin);
    let r;
    try {
      r = await sandbox.run({ argv: ['true'], cwd: ws.dir, env: { ...BASE_ENV }, timeoutMs: 30_000 });
    } finally {
      done = true;
    }
    assert.equal(r.exit_code, 0, JSON.stringify(r));
    assert.equal(inotifyWatches() - before, total);
    const partly = seen.filter((n) => n > 0 && n < total);
    assert.ok(partly.length >= 2, `turns that saw the scan half done: ${partly.length} (watch counts seen: ${[...new Set(seen)].join(', ')})`);
  } finally {
    sandbox.close();
    ws.remove();
  }
});

test('a directory holding a secret, moved by another call while a paced scan lets the event loop run, is still masked', async () => {
  // fs.rename checks the names it moves, not what they hold: between two slices of the walk a
  // directory could go from a part not yet walked into one already walked. The whole walk after
  // the paced one re-reads the directories with an event since, and finds it.
  const ws = tempWorkspace('tg-scan-move-');
  const cache = new ScanCache();
  try {
    for (const top of ['a', 'b']) for (let i = 0; i < 300; i++) mkdirSync(join(ws.dir, top, `d${i}`), { recursive: true });
    mkdirSync(join(ws.dir, 'a', 'config'));
    mkdirSync(join(ws.dir, 'b', 'config'));
    writeFileSync(join(ws.dir, 'a', 'config', '.env'), 'SECRET=a');
    writeFileSync(join(ws.dir, 'b', 'config', '.env'), 'SECRET=b');
    let moved: string | null = null;
    const pause = async (): Promise<void> => {
      if (moved !== null) return;
      // At the first pause one of a and b has been read and the other not: the unread one's
      // secret directory goes into the read one.
      const [from, to] = cache.clean(join(ws.dir, 'a')) !== undefined ? ['b', 'a'] : ['a', 'b'];
      assert.equal(cache.clean(join(ws.dir, from)), undefined, `${from} is not read yet at the first pause`);
      renameSync(join(ws.dir, from, 'config'), join(ws.dir, to, 'moved-config'));
      moved = join(ws.dir, to, 'moved-config', '.env');
    };
    const m = await scanWorkspacePaced(ws.dir, { classify, user: ROOT, cache }, pause);
    assert.ok(moved !== null, 'the scan paused');
    assert.ok(m.maskFiles.includes(moved), `${moved} is masked: ${JSON.stringify(m.maskFiles)}`);
    assert.deepEqual(sorted(m), sorted(scanWorkspace(ws.dir, { classify, user: ROOT })), 'the lists of a fresh whole walk');
  } finally {
    cache.close();
    ws.remove();
  }
});
