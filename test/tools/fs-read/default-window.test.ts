// fs.read without bounds is sized for a model's context (issue 12): 2,000 lines or ~20k tokens
// (bytes / 4), whichever comes first; any explicit bound replaces the window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, testRuntime } from '../../support/fixtures.js';
import { FS_READ_DEFAULT_MAX_BYTES, FS_READ_DEFAULT_MAX_LINES, FS_READ_LINES_PAGE_MAX_BYTES, type FsReadResult } from '../../../src/tools/fs-read/tool.js';

function lines(n: number, width: number): string {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) out.push(`${i} `.padEnd(width, 'x'));
  return `${out.join('\n')}\n`;
}

test('the default window is 2000 lines and 80,000 bytes (20k tokens at 4 bytes a token)', () => {
  assert.equal(FS_READ_DEFAULT_MAX_LINES, 2000);
  assert.equal(FS_READ_DEFAULT_MAX_BYTES, 80_000);
});

test('a read without bounds stops at 2000 lines; the continuation reads on from line 2001', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'short-lines.txt'), lines(5000, 10));
    const first = (await rt.call(envelope('fs.read', { path: 'short-lines.txt' }))).result as FsReadResult;
    assert.deepEqual([first.start_line, first.end_line, first.total_lines, first.truncated], [1, 2000, 5000, true]);
    const next = (await rt.call(envelope('fs.read', { path: 'short-lines.txt', continuation: first.continuation }))).result as FsReadResult;
    assert.deepEqual([next.start_line, next.end_line], [2001, 4000]);
  } finally {
    await done();
  }
});

test('a read without bounds of long lines stops at the token budget, on a line end', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'long-lines.txt'), lines(1000, 199)); // 200 bytes a line
    const r = (await rt.call(envelope('fs.read', { path: 'long-lines.txt' }))).result as FsReadResult;
    assert.equal(r.byte_length, 80_000);
    assert.equal(r.end_line, 400);
    assert.equal(r.truncated, true);
  } finally {
    await done();
  }
});

test('an explicit bound replaces the window: max_bytes alone has no line cap, max_lines alone keeps the 256 KiB page', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'short-lines.txt'), lines(5000, 10));
    const byBytes = (await rt.call(envelope('fs.read', { path: 'short-lines.txt', max_bytes: 1024 * 1024 }))).result as FsReadResult;
    assert.deepEqual([byBytes.end_line, byBytes.truncated], [5000, false]);
    writeFileSync(join(workspace, 'long-lines.txt'), lines(3000, 199));
    const byLines = (await rt.call(envelope('fs.read', { path: 'long-lines.txt', max_lines: 3000 }))).result as FsReadResult;
    assert.equal(byLines.byte_length, Math.floor(FS_READ_LINES_PAGE_MAX_BYTES / 200) * 200);
  } finally {
    await done();
  }
});
