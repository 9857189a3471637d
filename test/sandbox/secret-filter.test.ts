import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SecretFilter } from '../../src/sandbox/index.js';

function filterAll(secrets: string[], chunks: Buffer[]): string {
  const f = new SecretFilter(secrets);
  return Buffer.concat([...chunks.map((c) => f.push(c)), f.flush()]).toString('latin1');
}

test('a secret is replaced wherever the stream is split, and nothing else changes', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 6, maxLength: 20, unit: fc.constantFrom('a', 'b', 'c', 'x') }),
      fc.array(fc.string({ maxLength: 30, unit: fc.constantFrom('a', 'b', 'y', '\n') }), { maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      (secret, fillers, cuts) => {
        const text = fillers.join(secret);
        const data = Buffer.from(text, 'latin1');
        const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let from = 0;
        for (const p of [...points, data.length]) {
          chunks.push(data.subarray(from, p));
          from = p;
        }
        const out = filterAll([secret], chunks);
        assert.ok(!out.includes(secret));
        assert.equal(out, text.split(secret).join('[REDACTED]'));
      },
    ),
    { numRuns: 300 },
  );
});

test('values shorter than the redactable minimum are not searched for', () => {
  assert.equal(filterAll(['abc'], [Buffer.from('abc abc')]), 'abc abc');
  assert.equal(new SecretFilter(['abc']).active, false);
});

test('the longer of two overlapping secrets wins', () => {
  assert.equal(filterAll(['tokenA', 'tokenA-long-1'], [Buffer.from('x tokenA-long-1 tokenA y')]), 'x [REDACTED] [REDACTED] y');
});
