// redact() scans a value's many short strings joined into one text (src/redact/redactor.ts): one
// hint scan instead of one per string, and no walk at all when nothing can hold a secret. That
// must never change an answer: the result and the notes are those of redacting each string on
// its own, whatever the strings, the injected values and where a secret sits (a value, a key).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { redact, redactText, usableSecrets } from '../../src/redact/index.js';
import type { RedactionNote } from '../../src/protocol/index.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');

const piece = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('src/app.ts', 'node_modules/pkg/lib/index.js', 'line 12', '/', '-', 'é', 'Σ', 'x'.repeat(30)) },
  { weight: 1, arbitrary: fc.constantFrom('password = ', 'token: ', 'key=', 'Bearer ', 'PRIVATE KEY') },
  { weight: 1, arbitrary: fc.constant(null).map(() => `ghp_${pick(36)}`) },
  { weight: 1, arbitrary: fc.constant(null).map(() => `AKIA${pick(16).toUpperCase()}`) },
  { weight: 2, arbitrary: fc.constant(null).map(() => pick(10)) },
);
const text = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));

/** The oracle: each string redacted on its own, in the order redact() visits them. */
function oneByOne(strings: readonly string[], secrets: readonly string[]): { value: string[]; notes: RedactionNote[] } {
  const notes: RedactionNote[] = [];
  const usable = usableSecrets(secrets);
  return { value: strings.map((s, i) => redactText(s, `/result/${i}`, usable, true, notes)), notes };
}

test('many strings scanned joined are redacted exactly as one by one', async () => {
  await fc.assert(
    fc.property(fc.array(text, { minLength: 64, maxLength: 120 }), fc.integer({ min: -1, max: 119 }), (strings, secretAt) => {
      // An injected value: sometimes one of the strings' own text, so that it is found.
      const secrets = secretAt >= 0 && secretAt < strings.length ? [(strings[secretAt] as string).slice(0, 9)] : [];
      const got = redact(strings, { fields: [], patterns: true, secrets }, '/result');
      const want = oneByOne(strings, secrets);
      assert.deepEqual(got.value, want.value);
      assert.deepEqual(got.notes, want.notes);
    }),
    { numRuns: 200 },
  );
});

test('a value with nothing to redact comes back as itself; one secret among thousands of paths is still found', () => {
  const paths = Array.from({ length: 5_000 }, (_, i) => ({ path: `src/mod-${i}/index.ts`, count: i }));
  const clean = { matches: paths, total: 5_000 };
  const r = redact(clean, { fields: [], patterns: true, secrets: [] }, '/result');
  assert.equal(r.value, clean);
  assert.deepEqual(r.notes, []);

  const token = `ghp_${pick(36)}`;
  const dirty = { matches: [...paths.slice(0, 2_500), { path: `src/${token}.ts`, count: 1 }, ...paths.slice(2_500)], total: 5_001 };
  const d = redact(dirty, { fields: [], patterns: true, secrets: [] }, '/result');
  const hit = (d.value as typeof dirty).matches[2_500];
  assert.equal(hit?.path.includes(token), false);
  assert.match(hit?.path ?? '', /\[REDACTED:/);
  assert.equal(d.notes.length, 1);
  assert.equal(d.notes[0]?.pointer, '/result/matches/2500/path');

  // An injected value in a key, among many keys.
  const secret = `s3cr3t-${pick(12)}`;
  const keyed = Object.fromEntries([...paths.map((p) => [p.path, p.count]), [`dir/${secret}/file`, 7]]);
  const k = redact(keyed, { fields: [], patterns: true, secrets: [secret] }, '/result');
  assert.equal(Object.keys(k.value as object).some((key) => key.includes(secret)), false);
  assert.equal(k.notes.length, 1);
});

test('a short string with a window among many is still scanned with its window (a secret cut at the page edge)', () => {
  const token = `ghp_${pick(36)}`;
  const pages = Array.from({ length: 100 }, (_, i) => `line ${i} of a page`);
  pages[40] = `${token.slice(20)} and more`;
  const windows = [{ pointer: '/result/40', before: `prefix ${token.slice(0, 20)}`, after: '' }];
  const r = redact(pages, { fields: [], patterns: true, secrets: [], windows }, '/result');
  const got = (r.value as string[])[40] ?? '';
  assert.equal(got.includes(token.slice(20)), false, 'the part of the token inside the string is redacted');
  assert.equal(r.notes.length, 1);
  assert.equal(r.notes[0]?.pointer, '/result/40');
});

test('a field rule that names a place inside a big clean container still replaces it', () => {
  const rows = Array.from({ length: 100 }, (_, i) => ({ name: `row-${i}`, value: `plain value ${i}` }));
  const r = redact(rows, { fields: ['/50/value'], patterns: true, secrets: [] }, '/result');
  assert.equal((r.value as typeof rows)[50]?.value, '[REDACTED]');
  assert.equal((r.value as typeof rows)[49]?.value, 'plain value 49');
  assert.deepEqual(r.notes, [{ pointer: '/result/50/value', kind: 'field', rule: 'field', count: 1 }]);
});
