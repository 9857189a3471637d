// EffectCallers (src/runtime/attach.ts): the client signal of a keyed effect aborts only when
// every caller has gone for the grace; a caller coming back in time keeps it; nothing it made
// (listeners on callers' signals, the grace timer) outlives end().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { EffectCallers } from '../../src/runtime/attach.js';
import { waitFor } from '../support/processes.js';

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('the signal aborts once the last caller has gone for the grace, not while one waits', async () => {
  const callers = new EffectCallers(50);
  const a = new AbortController();
  const b = new AbortController();
  callers.join(a.signal, undefined);
  const leaveB = callers.join(b.signal, undefined);
  a.abort();
  await pause(150);
  assert.equal(callers.signal.aborted, false, 'one caller still waits');
  leaveB();
  assert.equal(callers.signal.aborted, false, 'the grace starts when the last caller leaves');
  assert.ok(await waitFor(() => callers.signal.aborted, 10_000), 'aborted after the grace');
  callers.end();
});

test('a caller joining within the grace keeps the effect; end() removes every listener on the callers\' signals', async () => {
  const callers = new EffectCallers(50);
  const first = new AbortController();
  const again = new AbortController();
  callers.join(first.signal, undefined);
  first.abort();
  const progress: string[] = [];
  callers.join(again.signal, (p) => void progress.push(p.message ?? ''));
  await pause(150);
  assert.equal(callers.signal.aborted, false, 'the re-joined caller disarmed the grace');
  callers.progress({ progress: 1, message: 'tick' });
  assert.deepEqual(progress, ['tick']);
  assert.equal(getEventListeners(again.signal, 'abort').length, 1);
  callers.end();
  assert.equal(getEventListeners(again.signal, 'abort').length, 0, 'no listener left on a caller\'s signal');
  callers.progress({ progress: 2, message: 'after end' });
  assert.deepEqual(progress, ['tick'], 'no progress after end');
  await callers.ended;
  await pause(100);
  assert.equal(callers.signal.aborted, false, 'no grace timer runs after end');
});

test('abandon(): with nobody waiting it aborts at once; with a caller, when that caller leaves', () => {
  const alone = new EffectCallers(600_000);
  const gone = new AbortController();
  alone.join(gone.signal, undefined);
  gone.abort();
  assert.equal(alone.signal.aborted, false);
  alone.abandon();
  assert.equal(alone.signal.aborted, true);
  alone.end();

  const waited = new EffectCallers(600_000);
  const leave = waited.join(undefined, undefined);
  waited.abandon();
  assert.equal(waited.signal.aborted, false, 'a caller still waits');
  leave();
  assert.equal(waited.signal.aborted, true, 'the last caller left an abandoned effect');
  waited.end();
});
