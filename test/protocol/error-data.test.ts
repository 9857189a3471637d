// Each error code's data is checked by the compiler (src/protocol/error-data.ts). The
// expect-error lines below are the test: `npm run typecheck` (part of `npm test`) fails when one of
// them compiles, i.e. when a code would accept data it does not have.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolgateError, errorBody, type ErrorCode } from '../../src/protocol/index.js';

test('an error keeps the data its code was given, and a code without data takes none', () => {
  const escape = new ToolgateError('path_escape', 'leaves the root', { path: '../x', link: 'a' });
  assert.deepEqual(escape.toBody(), { code: 'path_escape', message: 'leaves the root', data: { path: '../x', link: 'a' } });
  assert.equal(escape.data.path, '../x');
  assert.deepEqual(new ToolgateError('internal_error', 'runtime is closed').data, {});
  const cause = new Error('disk');
  assert.equal(new ToolgateError('not_found', 'gone', { receipt_id: 'r1' }, { cause }).cause, cause);
  assert.deepEqual(errorBody('ambiguous_effect', 'maybe'), { code: 'ambiguous_effect', message: 'maybe', data: {} });
});

test('the compiler refuses data that does not fit the code', () => {
  const refused = (): unknown[] => [
    // @ts-expect-error path_escape names its path
    new ToolgateError('path_escape', 'm'),
    // @ts-expect-error path_escape has no size
    new ToolgateError('path_escape', 'm', { path: 'a', size: 1 }),
    // @ts-expect-error a path is a string
    errorBody('no_change', 'm', { path: 1 }),
    // @ts-expect-error timed_out says which timeout
    new ToolgateError('timed_out', 'm'),
    // @ts-expect-error invalid_arguments carries faults, not a bare pointer
    new ToolgateError('invalid_arguments', 'm', { pointer: '/query' }),
    // @ts-expect-error internal_error takes only the fields it lists
    new ToolgateError('internal_error', 'm', { anything: true }),
  ];
  assert.equal(typeof refused, 'function');
});

test('a code known only at run time takes plain JSON data (re-wrapping a stored body)', () => {
  const code: ErrorCode = 'precondition_failed' as ErrorCode;
  const body = errorBody(code, 'm', { path: 'a', extra: [1] });
  assert.deepEqual(body.data, { path: 'a', extra: [1] });
});
