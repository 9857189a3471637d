// fs.search's multiline regex (ripgrep -U --multiline-dotall): a pattern across lines, `.`
// matching the newline, each match naming the line it starts on, its columns and the line it
// ends on; counts and paths too; refused outside regex mode; without it a newline in the
// pattern is ripgrep's own refusal.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Receipt } from '../../../src/protocol/index.js';
import { envelope, testRuntime } from '../../support/fixtures.js';

const SOURCE = 'def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n';

describe('fs.search multiline', () => {
  it('matches across lines with line, columns and end_line; counts and paths agree', async () => {
    const { rt, workspace, done } = await testRuntime();
    try {
      writeFileSync(join(workspace, 'calc.py'), SOURCE);
      writeFileSync(join(workspace, 'other.py'), 'x = 1\n');
      const search = (args: Record<string, unknown>): Promise<Receipt> => rt.call(envelope('fs.search', { mode: 'regex', ...args }));
      const r = await search({ query: 'b\\):\\n\\s+return a', multiline: true });
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      const matches = (r.result as { matches: unknown[] }).matches;
      assert.deepEqual(matches, [
        { path: 'calc.py', line: 1, column: 12, end_column: 13, text: 'def add(a, b):', end_line: 2 },
        { path: 'calc.py', line: 4, column: 12, end_column: 13, text: 'def sub(a, b):', end_line: 5 },
      ]);
      const dotall = await search({ query: 'add.*sub', multiline: true });
      assert.deepEqual((dotall.result as { matches: unknown[] }).matches, [{ path: 'calc.py', line: 1, column: 5, end_column: 8, text: 'def add(a, b):', end_line: 4 }]);
      const counts = await search({ query: 'b\\):\\n\\s+return a', multiline: true, output: 'count_only' });
      assert.deepEqual((counts.result as { counts: unknown[] }).counts, [{ path: 'calc.py', count: 2 }]);
      const paths = await search({ query: 'b\\):\\n\\s+return a', multiline: true, output: 'paths_only' });
      assert.deepEqual((paths.result as { paths: unknown[] }).paths, ['calc.py']);
      const within = await search({ query: 'return a - b' , multiline: true });
      assert.deepEqual((within.result as { matches: { line: number; end_line?: number }[] }).matches.map((m) => [m.line, m.end_line]), [[2, undefined], [5, undefined]], 'a match on one line has no end_line');
    } finally {
      await done();
    }
  });

  it('is refused outside regex mode; without it a newline in a regex is ripgrep\'s refusal', async () => {
    const { rt, done } = await testRuntime();
    try {
      const literal = await rt.call(envelope('fs.search', { mode: 'literal', query: 'x', multiline: true }));
      assert.deepEqual([literal.status, literal.error?.code, (literal.error?.data as { faults: { pointer: string }[] }).faults[0]?.pointer], ['failed', 'invalid_arguments', '/multiline']);
      const plain = await rt.call(envelope('fs.search', { mode: 'regex', query: 'a\\nb' }));
      assert.equal(plain.error?.code, 'invalid_arguments');
      assert.match(plain.error?.message ?? '', /multiline/);
    } finally {
      await done();
    }
  });
});
