// docs/protocol.md's error table is generated from src/protocol/error-data.ts and docs/cli.md's
// start-up error table from src/protocol/startup-error-data.ts (the types the compiler checks each
// code's data against); this fails when a page was not regenerated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CODES, STARTUP_ERROR_CODES } from '../../src/protocol/index.js';
import { PAGE, STARTUP_PAGE, STARTUP_SOURCE, errorTable, pageWithTable, startupErrorTable } from '../../scripts/error-table.js';

test('docs/protocol.md carries the error table generated from the error data types (npx tsx scripts/error-table.ts)', () => {
  const page = readFileSync(PAGE, 'utf8');
  assert.equal(pageWithTable(page, errorTable()), page);
});

test('the table has one row per code, in the order of the enum', () => {
  const codes = [...errorTable().matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(codes, [...ERROR_CODES]);
});

test('a code described without a stage, or a changed data type, is caught', () => {
  const source = readFileSync(new URL('../../src/protocol/error-data.ts', import.meta.url), 'utf8');
  assert.throws(() => errorTable(source.replace('   * @stage resolve\n   * @status failed\n   */\n  unknown_tool', '   * @status failed\n   */\n  unknown_tool')), /unknown_tool: the doc comment needs/);
  const page = readFileSync(PAGE, 'utf8');
  const changed = errorTable(source.replace('path_escape: { readonly path: string;', 'path_escape: { readonly path: string; readonly hops: number;'));
  assert.notEqual(pageWithTable(page, changed), page);
});

test('docs/cli.md carries the start-up error table generated from the start-up error data types, one row per code in enum order', () => {
  const page = readFileSync(STARTUP_PAGE, 'utf8');
  assert.equal(pageWithTable(page, startupErrorTable()), page);
  assert.deepEqual([...startupErrorTable().matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]), [...STARTUP_ERROR_CODES]);
  // Each table has its own start marker: the runtime table never replaces the start-up one, nor the reverse.
  assert.throws(() => pageWithTable(readFileSync(PAGE, 'utf8'), startupErrorTable()), /has no .*startup-error-table/);
  assert.throws(() => pageWithTable(page, errorTable()), /has no .*from src\/protocol\/error-data\.ts/);
});

test('a start-up code without a meaning, or a changed start-up data type, is caught', () => {
  const source = readFileSync(STARTUP_SOURCE, 'utf8');
  assert.throws(() => startupErrorTable(source.replace(/\/\*\*[^*]*\*\/\n {2}invalid_grant:/, '  invalid_grant:')), /invalid_grant: the doc comment needs a meaning/);
  const page = readFileSync(STARTUP_PAGE, 'utf8');
  assert.notEqual(pageWithTable(page, startupErrorTable(source.replace("readonly reason: 'unreadable' | 'invalid';", "readonly reason: 'unreadable' | 'invalid' | 'empty';"))), page);
});
