import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { redact, spansInWindow, applySpans, StreamRedactor } from '../../src/redact/index.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');
const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const whole = (text: string, secrets: string[] = []): string => (redact({ t: text }, { fields: [], patterns: true, secrets }).value as { t: string }).t;

function streamed(text: string, cuts: number[], secrets: string[] = []): string {
  const data = Buffer.from(text);
  const r = new StreamRedactor(secrets);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b)) {
    out.push(r.push(data.subarray(from, p)));
    from = p;
  }
  out.push(r.push(data.subarray(from)), r.flush());
  return Buffer.concat(out).toString();
}

test('password= assignments, JWTs, bearer tokens, URL passwords and every PEM label are redacted; ordinary code is not', () => {
  const r = Array.from({ length: 10 }, () => pick(16));
  const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx${r[0]}.${pick(43)}`;
  const out = whole(
    [
      `DB_PASSWORD=${r[1]}`,
      `"password": "${r[2]} with space"`,
      `--passphrase='${r[3]}'`,
      `client_secret: ${r[4]}`,
      `auth: ${jwt}`,
      `curl -H "Authorization: Bearer ${r[5]}"`,
      `postgres://app:${r[6]}@db.internal:5432/app`,
      `-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB${r[7]}\n-----END ENCRYPTED PRIVATE KEY-----`,
      `-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl${r[8]}\n-----END OPENSSH PRIVATE KEY-----`,
      `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQ${r[9]}\n-----END PGP PRIVATE KEY BLOCK-----`,
    ].join('\n'),
  );
  assert.deepEqual(r.filter((x) => out.includes(x)), [], out);
  const code = [
    'const password = getPassword(user);',
    'function login(password: string, token: string): boolean {',
    'max_tokens=1000',
    'if (secret === undefined) return;',
    "password: '${DB_PASSWORD}'",
    'the secret_path refusal names the path',
    'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  ].join('\n');
  assert.equal(whole(code), code);
});

test('a stream redacts exactly as the whole text, wherever it is cut: tokens, keys, injected values', () => {
  const secret = `inj-${pick(20)}`;
  const parts = [`ghp_${pick(36)}`, `AKIA${'ABCDEFGHIJKLMNOP'}`, pem, `password=${pick(12)}`, secret, `eyJhbGciOiJub25lIn0.eyJ${pick(20)}.`, 'plain text ', '\n', 'é€😀'];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 10 }), (pieces, cuts) => {
      const text = pieces.join(' ');
      assert.equal(streamed(text, cuts, [secret]), whole(text, [secret]));
    }),
    { numRuns: 300 },
  );
});

test('a private key body is dropped from a stream however long, and however its BEGIN and END lines are cut', () => {
  const body = Array.from({ length: 2000 }, () => pick(64)).join('\n'); // 130 KB, past any hold-back
  const text = `before\n-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\nafter`;
  for (const step of [1, 7, 4096, 65536]) {
    const cuts = Array.from({ length: Math.ceil(text.length / step) }, (_, i) => i * step);
    assert.equal(streamed(text, cuts), 'before\n[REDACTED:private-key]\nafter');
  }
  assert.equal(streamed(`x\n-----BEGIN PRIVATE KEY-----\n${body}`, [10, 5000]), 'x\n[REDACTED:private-key]', 'a key without END is dropped to the end');
});

test('a window redacts the part of a token that the cut left inside it, and a key body whose BEGIN line is before it', () => {
  const token = `ghp_${pick(36)}`;
  const page = token.slice(20) + ' next';
  const spans = spansInWindow(page, [], true, { before: 'x ' + token.slice(0, 20), after: '' });
  assert.equal(applySpans(page, spans), '[REDACTED:github-token] next');
  const lines = pem.split('\n');
  const inside = lines.slice(1).join('\n');
  assert.equal(applySpans(inside, spansInWindow(inside, [], true, { before: `${lines[0]}\n`, after: '' })), '[REDACTED:private-key]\n');
});

test('paths and ids that merely contain a rule prefix are left alone', () => {
  const text = 'src/tasks/risk-assessment-module-v2-with-a-long-name.ts task-0123456789abcdefghijklmnopqrstuvwxyz';
  assert.equal(whole(text), text);
});
