// docs/protocol.md's error table is generated from src/protocol/error-data.ts (the types the
// compiler checks each code's data against); this fails when the page was not regenerated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CODES } from '../../src/protocol/index.js';
import { PAGE, errorTable, pageWithTable } from '../../scripts/error-table.js';

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
