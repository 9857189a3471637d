// findSecrets remembers short texts its rules found nothing in (src/redact/detect.ts). The cache
// must never change an answer: whatever was scanned before, a text's spans are those of a fresh
// scan of the rules, and an injected secret is found in a text the cache holds as clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { findSecrets, mergeSpans, usableSecrets, type SecretSpan } from '../../src/redact/index.js';
import { scanPatterns } from '../../src/redact/detect.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');

/** The rules alone, never cached: the oracle. */
function fresh(text: string, secrets: readonly string[]): SecretSpan[] {
  const spans: SecretSpan[] = [];
  if (text.length < 6) return spans;
  for (const s of secrets) for (let at = text.indexOf(s); at !== -1; at = text.indexOf(s, at + s.length)) spans.push({ start: at, end: at + s.length, rule: 'injected-secret', kind: 'secret_value' });
  scanPatterns(text, spans);
  return mergeSpans(spans);
}

test('the clean-text cache never changes what findSecrets finds, in any order of texts', async () => {
  const piece = fc.oneof(
    fc.constantFrom('fs.read', 'src/app.ts', 'policy default-read', ' ', '\n', 'password = ', 'token: ', 'key=', 'Bearer ', 'é', 'x'.repeat(40)),
    fc.constant(null).map(() => `ghp_${pick(36)}`),
    fc.constant(null).map(() => `AKIA${pick(16).toUpperCase()}`),
    fc.constant(null).map(() => pick(12)),
  );
  const text = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
  await fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 12 }), fc.boolean(), (texts, withSecret) => {
      // Each text twice, so that the second answer comes from the cache when the first was clean.
      for (const t of [...texts, ...texts]) {
        const secrets = withSecret ? usableSecrets([t.slice(0, 8)]) : [];
        assert.deepEqual(findSecrets(t, secrets), fresh(t, secrets), JSON.stringify(t));
      }
    }),
    { numRuns: 300 },
  );
});

test('a text first seen clean still has its injected secret found, and a long text is scanned every time', () => {
  const secret = `s3cr3t-${pick(10)}`;
  const line = `deploy with ${secret} now`;
  assert.deepEqual(findSecrets(line, []), [], 'no rule matches it: cached as clean');
  const spans = findSecrets(line, usableSecrets([secret]));
  assert.equal(spans.length, 1);
  assert.equal(line.slice(spans[0]!.start, spans[0]!.end), secret);

  const long = `${'x'.repeat(2_000)} ghp_${pick(36)}`;
  assert.equal(findSecrets(long, []).length, 1);
  assert.equal(findSecrets(long, []).length, 1);
});
