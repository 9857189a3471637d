// An error line that names a credential file must stay readable (the model has to see why the
// command failed), while the credentials such a file holds are still redacted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { redact, StreamRedactor } from '../../src/redact/index.js';

const whole = (text: string): string => (redact({ t: text }, { fields: [], patterns: true, secrets: [] }).value as { t: string }).t;
const streamed = (text: string): string => {
  const r = new StreamRedactor([]);
  return Buffer.concat([r.push(Buffer.from(text)), r.flush()]).toString();
};
const fresh = (): string => randomBytes(12).toString('hex');

test('a shell error naming a credential file keeps its message: Permission denied, No such file', () => {
  const lines = [
    'cat: /root/.git-credentials: Permission denied',
    'cat: .git-credentials: Permission denied',
    'cat: ~/.netrc: No such file or directory',
    'cat: /home/dev/.aws/credentials: Permission denied',
    'cat: .aws/credentials: No such file or directory',
    'head: cannot open /run/secrets/db_password: No such file or directory',
    'tail: ~/.config/gh/token: Is a directory',
    'grep: C:\\Users\\dev\\.docker\\secret: Permission denied',
    'paths:\n  /auth/token:\n    post: {}',
  ];
  for (const line of lines) {
    assert.equal(whole(line), line);
    assert.equal(streamed(line), line, 'the stream redactor (command output) reads it the same way');
  }
});

test('the credentials inside such files, and key: value lines, are still redacted', () => {
  const [a, b, c, d, e, f, g] = [fresh(), fresh(), fresh(), fresh(), fresh(), fresh(), fresh()];
  const text = [
    `https://dev:${a}@github.com`, // a .git-credentials body
    `password=${b}`,
    `aws_secret_access_key = ${c}`,
    `password: ${d}`,
    `spring.datasource.password: ${e}`,
    `"/root/.token": "${f}"`, // quoted: redacted whatever the key looks like
    `/etc/app/db_password=${g}`, // an assignment, not a diagnostic
  ].join('\n');
  for (const out of [whole(text), streamed(text)]) {
    assert.deepEqual([a, b, c, d, e, f, g].filter((s) => out.includes(s)), [], out);
    assert.match(out, /https:\/\/dev:\[REDACTED:url-credentials\]@github\.com/);
  }
});
