import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { envelope, testRuntime } from '../../support/fixtures.js';
import type { Runtime } from '../../../src/runtime/index.js';
import type { FsReadResult } from '../../../src/tools/fs-read/tool.js';

async function page(rt: Runtime, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = await rt.call(envelope('fs.read', args, extra));
  return { r, res: r.result as FsReadResult };
}

/** Text with multi-byte characters and lines of every length, some longer than a page. */
function awkwardText(bytes: number): Buffer {
  const parts: Buffer[] = [];
  let n = 0;
  const alphabet = ['a', 'é', '漢', '🙂', ' ', 'z'];
  let i = 0;
  while (n < bytes) {
    const len = i % 97 === 0 ? 300_000 : (i * 7919) % 200;
    let line = '';
    for (let j = 0; j < len; j++) line += alphabet[(i + j) % alphabet.length];
    const b = Buffer.from(line + '\n');
    parts.push(b);
    n += b.length;
    i++;
  }
  return Buffer.concat(parts).subarray(0, bytes - 1);
}

test('a 64 MiB file read in pages reassembles to the exact bytes', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    const data = awkwardText(64 * 1024 * 1024);
    writeFileSync(join(workspace, 'big.txt'), data);
    const sha = createHash('sha256').update(data).digest('hex');
    const chunks: Buffer[] = [];
    let continuation: string | undefined;
    let pages = 0;
    let nextLine = 1;
    for (;;) {
      const { r, res } = await page(rt, { path: 'big.txt', max_bytes: 4 * 1024 * 1024, ...(continuation ? { continuation } : {}) });
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      assert.equal(res.sha256, sha);
      assert.equal(res.start_line, nextLine);
      assert.ok(res.byte_length <= 4 * 1024 * 1024);
      chunks.push(Buffer.from(res.content ?? '', 'utf8'));
      pages++;
      if (!res.truncated) break;
      nextLine = res.content?.endsWith('\n') ? res.end_line + 1 : res.end_line;
      continuation = res.continuation ?? undefined;
    }
    const joined = Buffer.concat(chunks);
    assert.equal(joined.length, data.length);
    assert.ok(joined.equals(data), 'pages concatenate to the file');
    assert.ok(pages >= 16);
  } finally {
    await done();
  }
});

test('a line longer than the page is split on a UTF-8 boundary, never inside a character', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    const data = Buffer.from('🙂'.repeat(1000) + '\nend\n');
    writeFileSync(join(workspace, 'wide.txt'), data);
    const parts: Buffer[] = [];
    let continuation: string | undefined;
    for (let i = 0; i < 100; i++) {
      const { res } = await page(rt, { path: 'wide.txt', max_bytes: 1001, ...(continuation ? { continuation } : {}) });
      assert.ok(!res.content?.includes('\uFFFD'), 'no broken character');
      parts.push(Buffer.from(res.content ?? ''));
      if (!res.truncated) break;
      continuation = res.continuation ?? undefined;
    }
    assert.ok(Buffer.concat(parts).equals(data));
  } finally {
    await done();
  }
});

test('start_line and max_lines select lines; total_lines counts the whole file', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'l.txt'), 'one\ntwo\nthree\nfour\nfive');
    const { res } = await page(rt, { path: 'l.txt', start_line: 2, max_lines: 2 });
    assert.equal(res.content, 'two\nthree\n');
    assert.equal(res.start_line, 2);
    assert.equal(res.end_line, 3);
    assert.equal(res.total_lines, 5);
    assert.equal(res.truncated, true);
    const next = await page(rt, { path: 'l.txt', continuation: res.continuation });
    assert.equal(next.res.content, 'four\nfive');
    assert.equal(next.res.start_line, 4);
    assert.equal(next.res.end_line, 5);
    assert.equal(next.res.truncated, false);
    assert.equal(next.res.continuation, null);
  } finally {
    await done();
  }
});

test('the next page after the file changed is stale_continuation', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'f.txt'), 'a\nb\nc\n');
    const { res } = await page(rt, { path: 'f.txt', max_lines: 1 });
    appendFileSync(join(workspace, 'f.txt'), 'd\n');
    const { r } = await page(rt, { path: 'f.txt', continuation: res.continuation });
    assert.equal(r.error?.code, 'stale_continuation');
    assert.equal(r.status, 'failed');
  } finally {
    await done();
  }
});

test('a tampered, foreign-task or foreign-path token is invalid_continuation', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'f.txt'), 'a\nb\nc\n');
    writeFileSync(join(workspace, 'g.txt'), 'a\nb\nc\n');
    const { res } = await page(rt, { path: 'f.txt', max_lines: 1 });
    const token = res.continuation as string;
    const [v, body, mac] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { p: { offset: number } };
    payload.p.offset = 0;
    const forged = `${v}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    for (const [args, extra] of [
      [{ path: 'f.txt', continuation: forged }, {}],
      [{ path: 'f.txt', continuation: token.slice(0, -2) + 'AA' }, {}],
      [{ path: 'f.txt', continuation: 'garbage' }, {}],
      [{ path: 'f.txt', continuation: token }, { task_id: 'another-task' }],
      [{ path: 'g.txt', continuation: token }, {}],
    ] as const) {
      const { r } = await page(rt, args, extra);
      assert.equal(r.error?.code, 'invalid_continuation', JSON.stringify(args));
    }
  } finally {
    await done();
  }
});

test('a binary file gives size and sha256 and no content', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    const data = Buffer.concat([Buffer.from('PNG'), Buffer.alloc(10), randomBytes(5000)]);
    writeFileSync(join(workspace, 'b.bin'), data);
    const { r, res } = await page(rt, { path: 'b.bin' });
    assert.equal(r.status, 'succeeded');
    assert.equal(res.binary, true);
    assert.equal(res.content, null);
    assert.equal(res.size, data.length);
    assert.equal(res.sha256, createHash('sha256').update(data).digest('hex'));
  } finally {
    await done();
  }
});

test('secret paths are secret_path, directories invalid_resource, missing files not_found', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, '.env'), 'TOKEN=canary-1234567\n');
    mkdirSync(join(workspace, '.ssh'));
    writeFileSync(join(workspace, '.ssh', 'config'), 'x');
    mkdirSync(join(workspace, 'd'));
    for (const [path, code] of [['.env', 'secret_path'], ['.ssh/config', 'secret_path'], ['d', 'invalid_resource'], ['nope.txt', 'not_found']] as const) {
      const { r } = await page(rt, { path });
      assert.equal(r.error?.code, code, path);
      assert.ok(!JSON.stringify(r).includes('canary-1234567'));
    }
  } finally {
    await done();
  }
});

test('secret patterns inside a file are redacted from the receipt, with a note', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    const key = 'AKIA' + 'ABCDEFGHIJKLMNOP';
    writeFileSync(join(workspace, 'conf.txt'), `aws_key = ${key}\n`);
    const { r, res } = await page(rt, { path: 'conf.txt' });
    assert.equal(res.content, 'aws_key = [REDACTED:aws-access-key-id]\n');
    assert.deepEqual(r.redactions, [{ pointer: '/result/content', kind: 'pattern', rule: 'aws-access-key-id', count: 1 }]);
    assert.ok(!(await rt.store.listReceipts({})).some((x) => JSON.stringify(x).includes(key)));
  } finally {
    await done();
  }
});
