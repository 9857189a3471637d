// The preimage bundle of a file set is written before the intent and synced while the intent
// syncs (src/resources/mutation/file-set.ts, PreimageBundle.stage): it enters the artifact store
// only once the intent is recorded, a refused intent leaves no artifact and no part, and the
// writer's own sync (ArtifactStore, `sync()` then `close()`) seals the same blob as a plain close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../src/artifacts/index.js';
import type { AttemptId, Digest, TaskId } from '../../../src/protocol/index.js';
import type { ExecuteContext } from '../../../src/registry/index.js';
import { Workspace } from '../../../src/resources/index.js';
import { createFsPatch, type FsPatchArgs } from '../../../src/tools/fs-patch/tool.js';

function threeFiles(root: string): FsPatchArgs {
  for (let i = 1; i <= 3; i++) {
    mkdirSync(join(root, `d${i}`), { recursive: true });
    writeFileSync(join(root, `d${i}/f.txt`), `file ${i}\nkeep\n`);
  }
  return { files: [1, 2, 3].map((i) => ({ path: `d${i}/f.txt`, edits: [{ old: `file ${i}`, new: `FILE ${i}` }] })) };
}

/** Every file beneath `dir` (relative names), recursively. */
function filesBeneath(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

type Outcome = Awaited<ReturnType<ReturnType<typeof createFsPatch>['execute']>>;

/** Runs the three-file patch with this markSent; `out` is the outcome, or what execute threw. */
async function run(markSent: (artifactsDir: string) => Promise<void>): Promise<{ root: string; artifactsDir: string; out: Outcome | { thrown: unknown }; cleanup: () => void }> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-presync-')));
  const root = join(base, 'ws');
  mkdirSync(root);
  const artifactsDir = join(base, 'artifacts');
  const ws = Workspace.open(root);
  try {
    const tool = createFsPatch();
    const args = tool.args.parse(threeFiles(root));
    const n = await tool.normalize(args, { workspace: ws, task_id: 't' as TaskId, receipts: { get: async () => undefined }, grants: async () => true });
    const ctx: ExecuteContext<FsPatchArgs, typeof n.prepared> = {
      args,
      prepared: n.prepared,
      action: { tool: 'fs.patch', tool_version: '1.0.0', effect_class: 'write', resources: n.resources, args_digest: 'sha256:x' as Digest },
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
      task_id: 't' as TaskId,
      attempt_id: 'a' as AttemptId,
      logical_effect_id: null,
      workspace: ws,
      artifacts: new ArtifactStore(artifactsDir),
      tokens: { sign: () => '', verify: () => ({}) },
      revision: { current: async () => 'r0', advance: async () => 'r1' },
      receipts: { get: async () => undefined },
      progress: () => {},
      hidden_paths: [],
      addSecret: () => {},
      markSent: () => markSent(artifactsDir),
    };
    const out = await tool.execute(ctx).catch((thrown: unknown) => ({ thrown }));
    return { root, artifactsDir, out, cleanup: () => rmSync(base, { recursive: true, force: true }) };
  } finally {
    ws.close();
  }
}

void test('the preimages are written before the intent and enter the store only after it', async () => {
  const seen: { parts: number; blobs: number }[] = [];
  const r = await run(async (dir) => {
    seen.push({ parts: filesBeneath(join(dir, 'tmp')).length, blobs: filesBeneath(join(dir, 'sha256')).length });
  });
  try {
    assert.ok(!('thrown' in r.out), String((r.out as { thrown?: unknown }).thrown));
    assert.equal(r.out.status, 'succeeded', JSON.stringify(r.out.error));
    assert.deepEqual(seen, [{ parts: 1, blobs: 0 }], 'at markSent: one part written, nothing in the store yet');
    assert.deepEqual(filesBeneath(join(r.artifactsDir, 'tmp')), [], 'the part was renamed into the store');
    const blobs = filesBeneath(join(r.artifactsDir, 'sha256'));
    assert.equal(blobs.length, 1);
    const bundle = readFileSync(join(r.artifactsDir, 'sha256', blobs[0] as string), 'utf8');
    assert.equal(bundle, 'file 1\nkeep\nfile 2\nkeep\nfile 3\nkeep\n', 'the three preimages, exactly, in order');
    assert.equal(r.out.artifacts?.[0]?.digest, `sha256:${(blobs[0] as string).replace('/', '')}`);
  } finally {
    r.cleanup();
  }
});

void test('a refused intent leaves every file as it was, no artifact and no part', async () => {
  const r = await run(async () => {
    throw new Error('store down');
  });
  try {
    // The store's failure is the runtime's to report: execute rethrows it.
    assert.ok('thrown' in r.out && String(r.out.thrown).includes('store down'), 'the store failure propagates');
    for (let i = 1; i <= 3; i++) assert.equal(readFileSync(join(r.root, `d${i}/f.txt`), 'utf8'), `file ${i}\nkeep\n`);
    for (let i = 1; i <= 3; i++) assert.deepEqual(readdirSync(join(r.root, `d${i}`)), ['f.txt'], 'no staged file left');
    assert.deepEqual(filesBeneath(join(r.artifactsDir, 'sha256')), [], 'no preimage artifact');
    assert.deepEqual(filesBeneath(join(r.artifactsDir, 'tmp')), [], 'no part left');
  } finally {
    r.cleanup();
  }
});

void test('an artifact writer synced before its close seals the same blob as a plain close', () => {
  const base = mkdtempSync(join(tmpdir(), 'tg-wsync-'));
  try {
    const store = new ArtifactStore(join(base, 'a'));
    const plain = store.put(Buffer.from('one two three'), 'text/plain', 'preimages:x');
    const w = store.writer('text/plain', 'preimages:x');
    w.write(Buffer.from('one two '));
    assert.ok(w.sync, 'an exact-role writer can sync on its own');
    w.sync();
    w.write(Buffer.from('three')); // written after the sync: close syncs it itself
    const ref = w.close();
    assert.deepEqual(ref, plain);
    assert.equal(store.get(ref.digest).toString(), 'one two three');
    assert.throws(() => w.sync?.(), /closed/);
    assert.equal(store.writer('text/plain', 'stdout').sync, undefined, 'a redacting writer holds bytes back: no sync of its own');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
