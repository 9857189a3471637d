// A library user meets the start-up failures as one family: StartupError with `.code` from
// STARTUP_ERROR_CODES and typed `.data`; the named subclasses keep their names and fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime, GrantFileError, parseGrantFile, PolicyLoadError, StartupError, STARTUP_ERROR_CODES, ToolgateError } from '../../src/index.js';
import { UsageError } from '../../src/cli/usage.js';
import { tempDirs } from '../support/fixtures.js';

test('createRuntime with a policy that fails strict validation throws a PolicyLoadError: StartupError invalid_policy, faults naming the policy', async () => {
  const d = tempDirs('tg-startup-lib');
  try {
    const policies = [{ name: 'team.cedar', text: 'permit (principal, action, resource) when { resource.size > 1 };' }];
    // Whether opening a runtime is synchronous or not, the failure is the same.
    await assert.rejects(
      async () => createRuntime({ workspace: d.workspace, stateDir: d.state, policies }),
      (e: unknown) => {
        assert.ok(e instanceof StartupError && e instanceof PolicyLoadError && PolicyLoadError.isInstance(e) && StartupError.isInstance(e));
        assert.equal(e.code, 'invalid_policy');
        assert.equal(e.name, 'PolicyLoadError');
        assert.equal(e.data.reason, 'invalid');
        assert.ok(e.data.faults.length > 0 && e.data.faults.every((f) => f.policy_id === 'team.cedar#0'), JSON.stringify(e.data));
        assert.equal(e.faults, e.data.faults);
        assert.deepEqual(e.toBody(), { code: 'invalid_policy', message: e.message, data: e.data });
        return true;
      },
    );
  } finally {
    d.cleanup();
  }
});

test('parseGrantFile throws a GrantFileError: StartupError invalid_grant with the JSON pointer of each fault', () => {
  assert.throws(
    () => parseGrantFile({ tools: ['*'], budget: { calls: -1 } }),
    (e: unknown) => {
      assert.ok(e instanceof GrantFileError && e instanceof StartupError);
      assert.equal(e.code, 'invalid_grant');
      assert.equal(e.data.reason, 'schema');
      assert.equal(e.data.file, undefined);
      assert.equal(e.data.faults[0]?.pointer, '/budget/calls');
      assert.equal(e.faults, e.data.faults);
      return true;
    },
  );
});

test('UsageError is the usage member of the family, and no start-up code is a runtime error code', () => {
  const e = new UsageError('--x takes a number');
  assert.ok(e instanceof StartupError && StartupError.isInstance(e));
  assert.equal(e.code, 'usage');
  assert.deepEqual(e.data, {});
  assert.equal(ToolgateError.isInstance(e), false);
  assert.ok(STARTUP_ERROR_CODES.includes(e.code));
});

test('the data is checked by the compiler per code', () => {
  // @ts-expect-error invalid_grant needs a reason and faults
  void new StartupError('invalid_grant', 'm', { file: 'g.json' });
  // @ts-expect-error usage carries no data
  void new StartupError('usage', 'm', { option: '--x' });
  // @ts-expect-error not a start-up code
  void new StartupError('path_escape', 'm');
  const ok = new StartupError('invalid_config', 'm', { file: 'c.json', reason: 'empty', faults: [] });
  assert.equal(ok.data.reason, 'empty');
});
