// bench/holds: the longest time one call holds the event loop (every other call on the server
// waits that long), for calls on the large inputs an agent meets in real repositories. Each row
// prints the call's wall time, its longest hold (the largest gap between the ticks of a 2 ms
// interval timer, less 2 ms) and a reference measured in the same run: the plain Node or
// command-line operation that moves the same bytes (its wall time; a synchronous reference holds
// the loop all along). docs/guarantees.md lists the before and after of each.
// Each scenario runs in a process of its own, so that no garbage of another (200 MB buffers)
// is collected inside its measurement.
// Run: npm run bench -- holds
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';

const base = mkdtempSync(join(tmpdir(), 'bench-holds-'));

interface Measured {
  readonly ms: number;
  readonly hold: number;
  readonly status: string;
}

async function measured(run: () => Promise<{ status: string }>): Promise<Measured> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  let hold = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    hold = Math.max(hold, now - last - 2);
    last = now;
  }, 2);
  const t = performance.now();
  try {
    const r = await run();
    const ms = performance.now() - t;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { ms, hold: Math.max(0, hold), status: r.status };
  } finally {
    clearInterval(tick);
  }
}

function timed(run: () => void): number {
  const t = performance.now();
  run();
  return performance.now() - t;
}

function row(label: string, m: Measured, refLabel: string, refMs: number): void {
  console.log(`${label.padEnd(58)} ${m.status.padEnd(9)} ${m.ms.toFixed(0).padStart(6)} ms  hold ${m.hold.toFixed(0).padStart(5)} ms  | ${refLabel.padEnd(34)} ${refMs.toFixed(0).padStart(6)} ms  hold/ref ${(m.hold / refMs).toFixed(2)}`);
}

function workspace(name: string, git = false): string {
  const ws = join(base, name);
  mkdirSync(ws, { recursive: true });
  if (git) {
    execFileSync('git', ['init', '-q'], { cwd: ws });
    writeFileSync(join(ws, 'README'), 'x\n');
    execFileSync('git', ['add', '-A'], { cwd: ws });
    execFileSync('git', ['-c', 'gc.auto=0', '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'x'], { cwd: ws });
  }
  return ws;
}

function tree(root: string, files: number, dirs: number, bytes: Buffer | string = 'z'): void {
  for (let i = 0; i < files; i++) {
    const d = join(root, `d${i % dirs}`);
    if (i < dirs) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.txt`), bytes);
  }
}

async function withRuntime(ws: string, run: (call: (tool: string, args: Record<string, unknown>) => Promise<{ status: string; receipt_id: string }>) => Promise<void>): Promise<void> {
  const rt: Runtime = await createRuntime({ workspace: ws, stateDir: join(base, `${ws.split('/').pop()}-state`) });
  try {
    await run((tool, args) => rt.call({ protocol_version: 'tool-call.v1', task_id: 'holds', tool, arguments: args }));
  } finally {
    await rt.close();
  }
}

const SCENARIOS = ['tree', 'fat', 'write', 'dirs', 'untracked', 'search', 'minified', 'lockfile', 'edit'] as const;
const only = process.argv[2];
if (only === undefined) {
  console.log('bench/holds: the longest event-loop hold of one call (ms), against the plain operation on the same bytes\n');
  for (const name of SCENARIOS) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/holds/main.ts', name], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  rmSync(base, { recursive: true, force: true });
  process.exit(0);
}

/** The same calls once on a tiny workspace first: every module is loaded (and, under tsx, compiled) before the measured call. */
async function warm(git: boolean): Promise<void> {
  const ws = workspace(`warm-${only}`, git);
  tree(join(ws, 'small'), 20, 4);
  writeFileSync(join(ws, 'one.bin'), Buffer.alloc(10_000_000, 1));
  await withRuntime(ws, async (call) => {
    const d = await call('fs.delete', { path: 'small', recursive: true });
    await call('fs.undo', { receipt_id: d.receipt_id });
    const f = await call('fs.delete', { path: 'one.bin' });
    await call('fs.undo', { receipt_id: f.receipt_id });
    await call('fs.write', { path: 'w.txt', content: 'a\r\nb\r\n', newline: 'lf' });
    await call('shell.exec', { argv: ['/bin/true'] });
    await call('fs.search', { query: 'z' });
  });
}

try {
  await warm(only === 'untracked' || only === 'search');

  // fs.delete of a tree of 20,000 files, and its undo; reference: rmSync of the same tree.
  if (only === 'tree') {
    const ws = workspace('tree');
    tree(join(ws, 'tree'), 20_000, 200);
    tree(join(base, 'ref-tree'), 20_000, 200);
    const ref = timed(() => rmSync(join(base, 'ref-tree'), { recursive: true }));
    await withRuntime(ws, async (call) => {
      let id = '';
      row('fs.delete, a tree of 20,000 files', await measured(async () => {
        const r = await call('fs.delete', { path: 'tree', recursive: true, max_entries: 100_000 });
        id = r.receipt_id;
        return r;
      }), 'rmSync of the same tree', ref);
      row('fs.undo of it', await measured(() => call('fs.undo', { receipt_id: id })), 'rmSync of the same tree', ref);
    });
  }

  // fs.delete of one 200 MB file, and its undo; reference: read it, write it back, fsync.
  if (only === 'fat') {
    const ws = workspace('fat');
    const data = Buffer.alloc(200_000_000, 7);
    writeFileSync(join(ws, 'one.bin'), data);
    const refFile = join(base, 'ref.bin');
    writeFileSync(refFile, data);
    const ref = timed(() => {
      const b = readFileSync(refFile);
      const fd = openSync(`${refFile}.copy`, 'w');
      writeSync(fd, b);
      fsyncSync(fd);
      closeSync(fd);
    });
    await withRuntime(ws, async (call) => {
      let id = '';
      row('fs.delete, one file of 200 MB', await measured(async () => {
        const r = await call('fs.delete', { path: 'one.bin' });
        id = r.receipt_id;
        return r;
      }), 'read + write + fsync of 200 MB', ref);
      row('fs.undo of it', await measured(() => call('fs.undo', { receipt_id: id })), 'read + write + fsync of 200 MB', ref);
    });
  }

  // fs.write of 7.5 MB of short CRLF lines as LF; reference: writeFileSync of the bytes.
  if (only === 'write') {
    const ws = workspace('write');
    const content = 'abc\r\n'.repeat(1_500_000);
    const ref = timed(() => writeFileSync(join(base, 'ref-write.txt'), content));
    await withRuntime(ws, async (call) => {
      row('fs.write, 7.5 MB of CRLF lines, newline: lf', await measured(() => call('fs.write', { path: 'w.txt', content, newline: 'lf' })), 'writeFileSync of the content', ref);
    });
  }

  // The first shell.exec in a workspace of 20,000 directories; reference: find over it.
  if (only === 'dirs') {
    const ws = workspace('dirs');
    for (let i = 0; i < 20_000; i++) mkdirSync(join(ws, `node_modules/p${i % 500}/d${i}`), { recursive: true });
    const ref = timed(() => spawnSync('find', [ws, '-type', 'd'], { stdio: 'ignore' }));
    await withRuntime(ws, async (call) => {
      row('shell.exec /bin/true, first in 20,000 directories', await measured(() => call('shell.exec', { argv: ['/bin/true'] })), 'find -type d over the tree', ref);
      row('shell.exec /bin/true, the next', await measured(() => call('shell.exec', { argv: ['/bin/true'] })), 'find -type d over the tree', ref);
    });
  }

  // shell.exec in a git repository with 30,000 untracked files; reference: one git status.
  if (only === 'untracked') {
    const ws = workspace('untracked', true);
    tree(join(ws, 'node_modules'), 30_000, 300);
    const ref = timed(() => spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: ws, stdio: 'ignore' }));
    await withRuntime(ws, async (call) => {
      await call('shell.exec', { argv: ['/bin/true'] }); // the workspace scan's first walk
      row('shell.exec /bin/true, 30,000 untracked files in git', await measured(() => call('shell.exec', { argv: ['/bin/true'] })), 'git status (one of the two)', ref);
    });
  }

  // fs.search of a rare literal in 50,000 small files in git; reference: rg.
  if (only === 'search') {
    const ws = workspace('search', true);
    for (let i = 0; i < 50_000; i++) {
      const d = join(ws, `src/p${i % 500}`);
      if (i < 500) mkdirSync(d, { recursive: true });
      writeFileSync(join(d, `f${i}.ts`), `export const v${i} = ${i};\n`);
    }
    execFileSync('git', ['add', '-A'], { cwd: ws });
    execFileSync('git', ['-c', 'gc.auto=0', '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'files'], { cwd: ws });
    const rg = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;
    const ref = rg ? timed(() => spawnSync('rg', ['-F', 'export const v4999', '--json'], { cwd: ws, stdio: 'ignore' })) : Number.NaN;
    await withRuntime(ws, async (call) => {
      for (const label of ['first', 'again']) {
        row(`fs.search, a rare literal in 50,000 files (${label})`, await measured(() => call('fs.search', { query: 'export const v4999' })), rg ? 'rg -F --json' : 'rg (not installed)', ref);
      }
    });
  }

  // fs.search in one minified line of 2 million matches (4 MiB, ripgrep's): the first page and the
  // next (it resumes inside the line); reference: rg --json over the file (a ~116 MB record).
  if (only === 'minified') {
    const ws = workspace('minified');
    writeFileSync(join(ws, 'bundle.min.js'), `${'ab'.repeat(2 * 1024 * 1024)}\n`);
    const rg = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;
    const ref = rg ? timed(() => spawnSync('rg', ['--json', '--ignore-case', 'AB', 'bundle.min.js'], { cwd: ws, stdio: 'ignore' })) : Number.NaN;
    await withRuntime(ws, async (call) => {
      let continuation: unknown;
      for (const label of ['first page', 'next page']) {
        row(`fs.search -i, a minified line of 2M matches (${label})`, await measured(async () => {
          const r = await call('fs.search', { query: 'AB', case_sensitive: false, include_generated: true, ...(continuation ? { continuation } : {}) });
          continuation = (r as { result?: { continuation?: unknown } }).result?.continuation;
          return r;
        }), rg ? 'rg --json -i over the file' : 'rg (not installed)', ref);
      }
    });
  }

  // A 4 MB lockfile (this project's package-lock.json repeated) shown whole: fs.read and
  // shell.exec cat; every result is redacted. Reference: reading the file.
  if (only === 'lockfile') {
    const ws = workspace('lockfile');
    const lock = readFileSync('package-lock.json', 'utf8');
    writeFileSync(join(ws, 'package-lock.json'), lock.repeat(Math.ceil(4_000_000 / lock.length)));
    const ref = timed(() => readFileSync(join(ws, 'package-lock.json'), 'utf8'));
    await withRuntime(ws, async (call) => {
      row('fs.read of a 4 MB package-lock.json', await measured(() => call('fs.read', { path: 'package-lock.json', max_bytes: 4_000_000 })), 'readFileSync of it', ref);
      row('shell.exec cat of it', await measured(() => call('shell.exec', { argv: ['cat', 'package-lock.json'] })), 'readFileSync of it', ref);
    });
  }

  // fs.patch of one line in a 4 MB CSV of 200,000 lines; reference: read it, replace, write it back.
  if (only === 'edit') {
    const ws = workspace('edit');
    const csv = Array.from({ length: 200_000 }, (_, i) => `${i},name${i},${i * 3},token_${i}`).join('\n') + '\n';
    writeFileSync(join(ws, 'data.csv'), csv);
    writeFileSync(join(base, 'ref.csv'), csv);
    const ref = timed(() => writeFileSync(join(base, 'ref.csv'), readFileSync(join(base, 'ref.csv'), 'utf8').replace('150000,name150000', 'X')));
    await withRuntime(ws, async (call) => {
      row('fs.patch, one edit in a 4 MB file of 200,000 lines', await measured(() => call('fs.patch', { files: [{ path: 'data.csv', edits: [{ old: '150000,name150000', new: 'X' }] }] })), 'read, replace, write it', ref);
    });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
