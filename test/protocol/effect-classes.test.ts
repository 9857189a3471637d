// The open-world and irreversible effect classes are defined once (protocol/action.ts); the
// registry diff's ranks, the MCP openWorldHint and the default policy's approval rule follow it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EFFECT_CLASSES, IRREVERSIBLE_EFFECTS, OPEN_WORLD_EFFECTS, effectRank } from '../../src/protocol/index.js';
import { DEFAULT_POLICY_SOURCE } from '../../src/policy/index.js';
import { annotationsOf } from '../../src/server/index.js';
import type { ManifestEntry } from '../../src/registry/index.js';

describe('effect classes', () => {
  it('rank by reach, the irreversible ones sharing the top rank', () => {
    assert.deepEqual(
      EFFECT_CLASSES.map((e) => effectRank(e)),
      [0, 1, 2, 3, 4, 4, 4, 4, 4],
    );
    assert.deepEqual(OPEN_WORLD_EFFECTS, ['network', ...IRREVERSIBLE_EFFECTS]);
  });

  it('MCP marks exactly the open-world classes openWorldHint', () => {
    for (const effect_class of EFFECT_CLASSES) {
      const entry = { name: 'x.y', effect_class, reversible: false, idempotency: 'reconcile' } as unknown as ManifestEntry;
      assert.equal(annotationsOf(entry).openWorldHint, (OPEN_WORLD_EFFECTS as readonly string[]).includes(effect_class), effect_class);
    }
  });

  it('the default policy asks approval for exactly the open-world classes', () => {
    assert.match(DEFAULT_POLICY_SOURCE.text, /when \{ \["network", "delete", "publish", "send", "deploy", "charge"\]\.contains\(context\.effect\) \}/);
    assert.match(DEFAULT_POLICY_SOURCE.text, /irreversible effects \(delete, publish, send, deploy, charge\) need an approval/);
  });
});
