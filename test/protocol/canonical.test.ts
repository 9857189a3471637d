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

test('canonicalJson on long arrays of records (search pages, listings) matches canonicalize both ways', () => {
  // Arrays of 16 or more with keys from a small set, as result rows have: canonicalJson writes
  // them with one JSON.stringify (every key listed, sorted) unless a value sends them to the walk.
  const key = fc.oneof(fc.constantFrom('path', 'count', 'a', 'b', 'B', '_', '1', '10', '9', 'é', '\u2028', '\uD83D\uDE00', 'constructor', 'toString', 'size', 'length', '__proto__', '\uD800'), fc.string({ maxLength: 3 }));
  const leaf = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 4 }), fc.double(), fc.integer(), fc.constantFrom(0, -0, 1e21, Number.NaN, Number.NEGATIVE_INFINITY, undefined), fc.boolean(), fc.constant(null));
  const values = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('value'), { minLength: 16, maxLength: 20 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      fc.array(fc.oneof(fc.record({ path: fc.string(), count: fc.integer() }), fc.dictionary(key, leaf, { maxKeys: 3 })), { minLength: 16, maxLength: 24 }),
    ),
  })).value;
  // A bare undefined has no JSON (canonicalJson throws, the package returns undefined).
  fc.assert(
    fc.property(values.filter((v) => v !== undefined), (v) => {
      assert.equal(outcome(() => canonicalJson(v)), outcome(() => oracle(v)));
    }),
    { numRuns: 5_000 },
  );
});

test('canonicalJson leaves out what JSON leaves out and reads no member through a prototype', () => {
  // JSON.stringify's key list is read with [[Get]]: an inherited `size` or getter must not be written.
  class Box {
    get size(): number {
      return 7;
    }
  }
  // Rows long enough for the one-stringify path (16), then what each case would get wrong.
  const rows = (...first: unknown[]): unknown[] => [...first, ...Array.from({ length: 16 }, () => ({}))];
  const tail = ',{}'.repeat(16);
  assert.equal(canonicalJson(rows({ size: 1 }, new Map([['k', 'v']]), new Box())), `[{"size":1},{},{}${tail}]`);
  assert.equal(canonicalJson(rows({ b: [undefined, () => 1, Symbol('s')], a: undefined, c: () => 1 })), `[{"b":[null,null,null]}${tail}]`);
  assert.equal(canonicalJson(rows({ constructor: 1 }, {})), `[{"constructor":1},{}${tail}]`);
  assert.equal(canonicalJson(rows(...(JSON.parse('[{"__proto__":1},{"a":2}]') as unknown[]))), `[{"__proto__":1},{"a":2}${tail}]`);
  assert.equal(canonicalJson(rows({ b: 1, a: 2, 10: 3, 9: 4 })), `[{"10":3,"9":4,"a":2,"b":1}${tail}]`);
  assert.throws(() => canonicalJson(rows({ a: Number.NaN })), /NaN/);
  assert.throws(() => canonicalJson(rows({ a: '\uD800' })), /surrogate/);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic['self'] = rows(cyclic);
  assert.throws(() => canonicalJson(cyclic), /Circular/);
});

test('RFC 8785 examples: key order by UTF-16 code units, number forms, escapes', () => {
  assert.equal(canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' }),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
  assert.equal(canonicalJson([Number('333333333.33333329'), 1e30, 4.5, 2e-3, 0.000000000000000000000000001]), '[333333333.3333333,1e+30,4.5,0.002,1e-27]');
  assert.throws(() => canonicalJson({ a: '\uD800' }));
  assert.throws(() => canonicalJson(Number.NaN));
});
