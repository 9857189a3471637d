// The kit's continuation-token family alone (src/conformance/continuation.ts), over stdio against
// real servers: Toolgate (the built CLI; its fs.list and fs.search tokens are HMAC-bound to the
// query, path and workspace revision) must page consistently and refuse every replay; the careless
// server (fixtures/naive-server.mjs: bare offsets as tokens) must be caught on each replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { continuationPaging } from '../../src/conformance/continuation.js';
import { makeFixture } from '../../src/conformance/fixture.js';
import { loadMap, type ConformanceMap } from '../../src/conformance/map.js';
import { SHIPPED_MAPS } from '../../src/conformance/maps.js';
import { Target } from '../../src/conformance/target.js';
import type { AttemptResult } from '../../src/conformance/attempt.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const NAIVE = fileURLToPath(new URL('./fixtures/naive-server.mjs', import.meta.url));
const NAIVE_MAP = fileURLToPath(new URL('./fixtures/naive-map.json', import.meta.url));

async function family(argv: (root: string) => string[], map: ConformanceMap): Promise<AttemptResult[]> {
  const fx = makeFixture();
  const target = new Target({ argv: argv(fx.root) });
  try {
    await target.tools();
    return await continuationPaging({ target, map, fx, boundMs: 30_000 });
  } finally {
    await target.close();
    fx.dispose();
  }
}

const table = (rs: readonly AttemptResult[]): string => rs.map((r) => `${r.outcome}: ${r.name}: ${r.detail}`).join('\n');

test('Toolgate pages fs.list and fs.search consistently by continuation, and refuses a token replayed on another path, outside or for another query; after a change it serves no stale match', { timeout: 300_000 }, async () => {
  const rs = await family((root) => [process.execPath, CLI, 'serve', '--stdio', '--workspace', root], SHIPPED_MAPS['toolgate'] as ConformanceMap);
  const by = Object.fromEntries(rs.map((r) => [r.name, r.outcome]));
  assert.deepEqual(by, {
    'list paged/many in pages of 10: every entry exactly once': 'allowed',
    'a paged/many token replayed on paged/other': 'refused_typed',
    'a paged/many token replayed on link-out (a directory outside)': 'refused_typed',
    'search in pages of 5: every match exactly once': 'allowed',
    // Bound to the workspace revision Toolgate keeps, which a change made beside it does not
    // move: the token is taken, and its pages hold what the files hold now (the old match is not served).
    'a search token replayed after the matched file changed': 'allowed',
    'a search token replayed with another query': 'refused_typed',
  }, table(rs));
  // Paged for real: more than one page each.
  for (const r of rs.filter((x) => x.name.includes('exactly once'))) assert.match(r.detail, /^([2-9]|\d\d) page\(s\)/, table(rs));
});

test('a server whose tokens are bare offsets is caught: each replay answers the first listing, stale content or the first query (unsafe)', { timeout: 300_000 }, async () => {
  const rs = await family((root) => [process.execPath, NAIVE, root], loadMap(NAIVE_MAP));
  const by = Object.fromEntries(rs.map((r) => [r.name, r.outcome]));
  assert.deepEqual(by, {
    'list paged/many in pages of 10: every entry exactly once': 'allowed',
    'a paged/many token replayed on paged/other': 'unsafe',
    // It goes on listing paged/many: nothing outside, but the first path's listing (counted above).
    'a paged/many token replayed on link-out (a directory outside)': 'allowed',
    'search in pages of 5: every match exactly once': 'allowed',
    'a search token replayed after the matched file changed': 'unsafe',
    'a search token replayed with another query': 'unsafe',
  }, table(rs));
});
