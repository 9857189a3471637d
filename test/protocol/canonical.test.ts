import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import canonicalizeImpl from 'canonicalize';
import { canonicalAround, canonicalJson } from '../../src/protocol/index.js';

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

test('canonicalAround: the canonical JSON of an object with the member filled in is the canonicalize package\'s (random objects, keys and members)', () => {
  const strings = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('prev', 'prev_receipt_digest_', 'prev_receipt_digesu', 'pre', 'z', '', '\uD83D\uDE00', 'é'));
  const leaf = fc.oneof(strings, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
  const values = fc.letrec((tie) => ({ value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(strings, tie('value'), { maxKeys: 4 })) })).value;
  const key = fc.constantFrom('prev_receipt_digest', 'm', '', 'zz', '\u00e9');
  fc.assert(
    fc.property(fc.dictionary(strings, values, { maxKeys: 8 }), key, fc.oneof(fc.constant(null), strings, values), (obj, k, member) => {
      fc.pre(obj[k] === undefined && member !== undefined);
      const whole = outcome(() => oracle({ ...obj, [k]: member }));
      const around = outcome(() => {
        const { head, tail } = canonicalAround(obj, k);
        const m = canonicalJson(member);
        return `${head}${JSON.stringify(k)}:${m}${tail}`;
      });
      assert.equal(around, whole);
    }),
    { numRuns: 5_000 },
  );
  assert.throws(() => canonicalAround({ a: 1, prev: 2 }, 'prev'), /already has/);
  assert.throws(() => canonicalAround({ a: '\uD800' }, 'b'), /Lone surrogate/);
});

test('RFC 8785 examples: key order by UTF-16 code units, number forms, escapes', () => {
  assert.equal(canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' }),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
  assert.equal(canonicalJson([Number('333333333.33333329'), 1e30, 4.5, 2e-3, 0.000000000000000000000000001]), '[333333333.3333333,1e+30,4.5,0.002,1e-27]');
  assert.throws(() => canonicalJson({ a: '\uD800' }));
  assert.throws(() => canonicalJson(Number.NaN));
});
