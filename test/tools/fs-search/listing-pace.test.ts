// The candidate list of a search is made between turns of the event loop (TreePacer): outside
// git, a workspace of 50,000 files was walked and filtered in one go on every search, ~230 ms
// of every other call held. The pauses are counted, not timed: the same on any machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitLocations, PACE_ENTRIES, TreePacer, Workspace } from '../../../src/resources/index.js';
import { watchSet } from '../../../src/tools/fs-search/candidate-cache.js';
import { execFileSync } from 'node:child_process';
import { listCandidates, PathClassCache } from '../../../src/tools/fs-search/candidates.js';

test('outside git, the walk and the filter of 3,000 files let the event loop run every PACE_ENTRIES entries', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tg-list-pace-'));
  const ws = Workspace.open(root);
  try {
    for (let i = 0; i < 3_000; i++) {
      mkdirSync(join(root, `d${i % 20}`), { recursive: true });
      writeFileSync(join(root, `d${i % 20}`, `f${i}.txt`), 'x');
    }
    writeFileSync(join(root, 'd3', '.env'), 'SECRET=1');
    let pauses = 0;
    const set = await listCandidates(ws, { include_ignored: false, include_generated: false }, new AbortController().signal, new PathClassCache(), undefined, false, async () => void pauses++);
    assert.equal(set.source, 'walk');
    assert.equal(set.files.length, 3_000);
    assert.equal(set.skipped.secret, 1);
    // The walk sees 3,021 entries (20 directories, 3,001 files), then the filter 3,001 paths: one count.
    assert.equal(pauses, Math.floor((3_021 + 3_001) / PACE_ENTRIES));
  } finally {
    ws.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('the watch set of a kept list is walked between turns of the event loop, every PACE_ENTRIES entries', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tg-watch-pace-'));
  const ws = Workspace.open(root);
  try {
    for (let i = 0; i < 2_000; i++) {
      mkdirSync(join(root, `d${i % 40}`), { recursive: true });
      writeFileSync(join(root, `d${i % 40}`, `f${i}.txt`), 'x');
    }
    execFileSync('git', ['init', '-q'], { cwd: root });
    const where = await gitLocations(root, new AbortController().signal);
    assert.ok(where);
    let pauses = 0;
    const set = await watchSet(root, ws.rootFd, where, [], false, new TreePacer(async () => void pauses++));
    assert.equal(set.filter((w) => w.kind === 'dir').length, 41, 'the root and its 40 directories');
    // Entries met: 41 at the root (40 directories and .git), 2,000 files in the directories.
    assert.equal(pauses, Math.floor(2_041 / PACE_ENTRIES));
  } finally {
    ws.close();
    rmSync(root, { recursive: true, force: true });
  }
});
