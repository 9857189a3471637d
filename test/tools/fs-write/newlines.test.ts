// fs.write's newline conversion runs on the bytes (src/tools/fs-write/content.ts). Its oracle is
// the conversion it replaced, on the decoded text: CRLF → LF by a regex, then LF → CRLF. The two
// must agree on every UTF-8 input, whatever mix of CR, LF, CRLF and multi-byte characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyNewlines, crlfToLf, lfToCrlf } from '../../../src/tools/fs-write/content.js';
import { usesCrlf } from '../../../src/resources/index.js';
import { random } from '../../support/random.js';
import { withHarness } from './harness.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function oracle(bytes: Buffer, want: 'lf' | 'crlf'): Buffer {
  const lf = bytes.toString('utf8').replace(/\r\n/g, '\n');
  return Buffer.from(want === 'lf' ? lf : lf.replace(/\n/g, '\r\n'), 'utf8');
}

const PIECES = ['\r', '\n', '\r\n', '\n\r', 'a', 'é', '€', '😀', ' ', '\r\r\n'];

test('the byte conversion equals the text conversion on 2,000 random inputs', () => {
  const next = random(20261206);
  for (let round = 0; round < 2_000; round++) {
    let text = '';
    const n = Math.floor(next() * 40);
    for (let i = 0; i < n; i++) text += PIECES[Math.floor(next() * PIECES.length)];
    const bytes = Buffer.from(text, 'utf8');
    assert.deepEqual(crlfToLf(bytes), oracle(bytes, 'lf'), `lf of ${JSON.stringify(text)}`);
    assert.deepEqual(lfToCrlf(bytes), oracle(bytes, 'crlf'), `crlf of ${JSON.stringify(text)}`);
    assert.deepEqual(applyNewlines(bytes, 'lf', null), oracle(bytes, 'lf'));
    assert.deepEqual(applyNewlines(bytes, 'preserve', Buffer.from('x\r\ny\r\n')), oracle(bytes, 'crlf'));
    assert.equal(applyNewlines(bytes, 'preserve', Buffer.from('x\ny\n')), bytes, 'preserve over an LF file keeps the bytes');
  }
});

test('the edges: empty, a lone CR at either end, CRLF split by nothing else', () => {
  for (const text of ['', '\r', '\n', '\r\n', 'a\r', '\ra', '\n\n', '\r\n\r\n', '\r\r', 'a\nb\r\nc\rd']) {
    const bytes = Buffer.from(text, 'utf8');
    assert.deepEqual(crlfToLf(bytes), oracle(bytes, 'lf'), JSON.stringify(text));
    assert.deepEqual(lfToCrlf(bytes), oracle(bytes, 'crlf'), JSON.stringify(text));
  }
});

void test('fs.write converts a large file of short lines whole (newline lf and crlf)', () =>
  withHarness(async (h) => {
    const crlf = 'ab\r\n'.repeat(500_000) + 'tail';
    const r = await h.call('fs.write', { path: 'big.txt', content: crlf, newline: 'lf' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(readFileSync(join(h.root, 'big.txt'), 'utf8'), 'ab\n'.repeat(500_000) + 'tail');
    const back = await h.call('fs.write', { path: 'big2.txt', content: 'ab\n'.repeat(500_000), newline: 'crlf' });
    assert.equal(back.status, 'succeeded', JSON.stringify(back.error));
    assert.equal(readFileSync(join(h.root, 'big2.txt'), 'utf8'), 'ab\r\n'.repeat(500_000));
  }));

test('usesCrlf finds the newlines with indexOf and counts them as the byte loop it replaced did', () => {
  // The loop (a JavaScript byte loop over a 4 MB file held the event loop ~15 ms) is the oracle.
  const loop = (data: Uint8Array): boolean => {
    let lf = 0;
    let crlf = 0;
    for (let i = 0; i < data.length; i++) {
      if (data[i] !== 10) continue;
      if (i > 0 && data[i - 1] === 13) crlf++;
      else lf++;
    }
    return crlf > lf;
  };
  const next = random(20261207);
  for (let round = 0; round < 2_000; round++) {
    const bytes = Buffer.from(Array.from({ length: Math.floor(next() * 30) }, () => PIECES[Math.floor(next() * PIECES.length)]).join(''), 'utf8');
    // Also a view into a larger buffer, as a file's bytes may be.
    const view = new Uint8Array(Buffer.concat([Buffer.from('\r'), bytes, Buffer.from('\n')]).buffer).subarray(1, 1 + bytes.length);
    assert.equal(usesCrlf(bytes), loop(bytes), JSON.stringify(bytes.toString()));
    assert.equal(usesCrlf(view), loop(view), JSON.stringify(bytes.toString()));
  }
});
