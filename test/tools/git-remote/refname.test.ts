// The ref rules written out in refname.ts against git itself: for every input, a name this
// module takes is one `git check-ref-format` takes (never wider), and each stricter refusal is
// one of the documented three (not ASCII, symbolic, fewer than three components).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { normalizeRef, refFault } from '../../../src/tools/git-remote/refname.js';

function gitTakes(name: string): boolean {
  return spawnSync('git', ['check-ref-format', name]).status === 0;
}

const STRICTER = new Set(['not_ascii', 'symbolic', 'too_short']);

describe('ref names', () => {
  it('agrees with git check-ref-format on hand-picked names', () => {
    const names = ['refs/heads/main', 'refs/heads/feature/x', 'refs/tags/v1.0', 'refs/heads/../x', 'refs/heads/a..b', 'refs/heads/x.lock', 'refs/heads/.x', 'refs/heads/x.', 'refs/heads/a@{1}', 'refs/heads/@', 'refs/heads/a b', 'refs/heads/a~1', 'refs/heads/a^', 'refs/heads/a:b', 'refs/heads/a\\b', 'refs/heads/a*', 'refs/heads/a?', 'refs/heads/a[', 'refs//heads', '/refs/heads/x', 'refs/heads/x/', 'refs/heads/\u0001', 'refs/heads/\u007f', 'refs/heads/a@b', 'refs/heads/-x'];
    for (const n of names) {
      const mine = refFault(n) === null;
      assert.equal(mine, gitTakes(n), `${JSON.stringify(n)}: refFault says ${refFault(n)}`);
    }
  });

  it('never takes a name git refuses (property, 300 runs over a ref-ish alphabet)', () => {
    const ch = fc.constantFrom(...'ab/.-_@{}~^:?*[\\ \u0001\u007fé'.split(''));
    fc.assert(
      fc.property(fc.array(ch, { minLength: 1, maxLength: 12 }), (chars) => {
        const name = `refs/heads/${chars.join('')}`;
        const fault = refFault(name);
        const git = gitTakes(name);
        if (fault === null) return git;
        return !git || STRICTER.has(fault);
      }),
      { numRuns: 300 },
    );
  });

  it('short names are branches; symbolic names and one-level refs are refused', () => {
    assert.equal(normalizeRef('main'), 'refs/heads/main');
    assert.equal(normalizeRef('feature/x'), 'refs/heads/feature/x');
    assert.equal(normalizeRef('refs/tags/v1'), 'refs/tags/v1');
    for (const bad of ['HEAD', 'FETCH_HEAD', '@', 'refs/main', 'refs/heads/mаin']) assert.throws(() => normalizeRef(bad), (e: { code?: string }) => e.code === 'invalid_resource', bad);
  });
});
