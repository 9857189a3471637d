// A rule is tried only on a text that holds one of its hints (src/redact/detect.ts). A long text
// is searched for all the hints in one pass: each hint's own `includes` scanned a 4 MB lockfile
// 59 times, 165 ms of the event loop for every fs.read or shell.exec that showed it. The hints
// only choose which rules run, so the oracle is every rule run over the whole text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { SECRET_RULES, type SecretSpan } from '../../src/redact/index.js';
import { scanPatterns } from '../../src/redact/detect.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');

/** Every rule over the whole text, no hint looked at. */
function everyRule(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const r of SECRET_RULES) {
    const re = new RegExp(r.re.source, r.re.flags);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      const named = Object.entries(m.indices?.groups ?? {}).find(([name, range]) => name.startsWith('s') && range !== undefined)?.[1];
      const [start, end] = named ?? [m.index, m.index + m[0].length];
      const found = text.slice(start, end);
      if (end > start && !found.startsWith('[REDACTED') && !(r.skip?.(found) ?? false)) spans.push({ start, end, rule: r.id, kind: 'pattern' });
    }
  }
  return spans;
}

const sorted = (spans: readonly SecretSpan[]): string[] => spans.map((s) => `${s.start}-${s.end} ${s.rule}`).sort();

test('a text of any length finds what every rule run over it finds, whichever hints it holds and wherever', async () => {
  const piece = fc.oneof(
    fc.constantFrom(' ', '\n', 'password = ', 'token: ', 'key=', 'Bearer ', 'https://', '://user:', 'gh', 'ghp', 'sk-', 'sk', 'eyJ', 'xox', 'AKIA', 'é', '"integrity": "sha512-'),
    fc.constant(null).map(() => `ghp_${pick(36)}`),
    fc.constant(null).map(() => `AKIA${pick(16).toUpperCase()}`),
    fc.constant(null).map(() => `xoxb-${pick(10)}-${pick(12)}-${pick(24)}`),
    fc.constant(null).map(() => `sk-proj-${pick(48)}`),
    // Hints that overlap: the second starts inside the first (npm_ / _authToken=, gsk_ / k_live_, ops_ey / eyJ).
    fc.constant(null).map(() => `//registry.npmjs.org/:npm_authToken=npm_${pick(36)}`),
    fc.constant(null).map(() => `gsk_live_${pick(24)} sk_live_${pick(24)}`),
    fc.constant(null).map(() => `ops_eyJ${pick(30)}.eyJ${pick(30)}.${pick(30)}`),
    fc.constant(null).map(() => pick(64)),
  );
  // Short texts and ones past the length scanned in one pass (16 Ki characters), the hints anywhere in them.
  const text = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.nat({ max: 40_000 }), fc.nat()).map(([parts, pad, at]) => {
    const filler = 'z'.repeat(pad);
    const cut = at % (filler.length + 1);
    return filler.slice(0, cut) + parts.join('') + filler.slice(cut);
  });
  await fc.assert(
    fc.property(text, (t) => {
      const spans: SecretSpan[] = [];
      scanPatterns(t, spans);
      assert.deepEqual(sorted(spans), sorted(everyRule(t)));
    }),
    { numRuns: 400 },
  );
});

test('a long text is read once for all the hints, not once for each', () => {
  const lock = `"integrity": "sha512-${pick(86)}==",\n`.repeat(2_000) + `token: ${pick(20)}\n`; // ~220 KB
  const includes = String.prototype.includes;
  let calls = 0;
  String.prototype.includes = function (this: string, ...args: Parameters<typeof includes>): boolean {
    calls++;
    return includes.apply(this, args);
  };
  const spans: SecretSpan[] = [];
  try {
    scanPatterns(lock, spans);
  } finally {
    String.prototype.includes = includes;
  }
  assert.equal(calls, 0, 'no hint looked for with a scan of its own');
  assert.deepEqual(sorted(spans), sorted(everyRule(lock)));
});
