// The abort reason a call's signal carries: a typed kind for the runtime, the standard
// DOMException names for everything else that reads signal.reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallAborted, abortKindOf, type AbortKind } from '../../src/protocol/index.js';

test('a CallAborted carries its kind and the standard name: AbortError for cancellations, TimeoutError for time', () => {
  const expected: Record<AbortKind, string> = { client_cancel: 'AbortError', task_cancel: 'AbortError', deadline: 'TimeoutError', timeout: 'TimeoutError' };
  for (const [kind, name] of Object.entries(expected) as [AbortKind, string][]) {
    const reason = new CallAborted(kind);
    assert.ok(reason instanceof DOMException && reason instanceof Error);
    assert.equal(reason.name, name);
    assert.equal(reason.kind, kind);
    assert.equal(abortKindOf(reason), kind);
    const controller = new AbortController();
    controller.abort(reason);
    assert.equal(abortKindOf(controller.signal.reason), kind, 'the kind survives the signal');
  }
});

test('a reason the runtime did not give has no kind, whatever its name says', () => {
  const plain = new AbortController();
  plain.abort();
  assert.equal(abortKindOf(plain.signal.reason), null);
  assert.equal(abortKindOf(AbortSignal.abort(new DOMException('late', 'TimeoutError')).reason), null);
  assert.equal(abortKindOf({ kind: 'deadline' }), null);
  assert.equal(abortKindOf(undefined), null);
});
