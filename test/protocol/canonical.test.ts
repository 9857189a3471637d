import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import canonicalizeImpl from 'canonicalize';
import { canonicalJson } from '../../src/protocol/index.js';

const oracle = canonicalizeImpl as unknown as (v: unknown) => string | undefined;

function outcome(f: () => string | undefined): string {
  try {
    return `ok:${f()}`;
  } catch {
    return 'throws';
  }
}

test('canonicalJson gives the same bytes as the canonicalize package (RFC 8785) on random JSON', () => {
  const strings = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('\uD800', 'a\uDC00b', '\uD83D\uDE00', 'é', '\u2028'));
  const values = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      strings,
      fc.double(),
      fc.integer(),
      fc.constantFrom(0, -0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(strings, tie('value'), { maxKeys: 5 }),
    ),
  })).value;
  fc.assert(
    fc.property(values, (v) => {
      assert.equal(outcome(() => canonicalJson(v)), outcome(() => oracle(v)));
    }),
    { numRuns: 5_000 },
  );
});

test('RFC 8785 examples: key order by UTF-16 code units, number forms, escapes', () => {
  assert.equal(canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' }),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
  assert.equal(canonicalJson([Number('333333333.33333329'), 1e30, 4.5, 2e-3, 0.000000000000000000000000001]), '[333333333.3333333,1e+30,4.5,0.002,1e-27]');
  assert.throws(() => canonicalJson({ a: '\uD800' }));
  assert.throws(() => canonicalJson(Number.NaN));
});
