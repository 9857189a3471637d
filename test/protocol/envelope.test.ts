import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope, ToolgateError, ERROR_CODES, canonicalJson, digestOf } from '../../src/protocol/index.js';

const ok = { protocol_version: 'tool-call.v1', task_id: 't1', tool: 'fs.read', arguments: { path: 'a' } };

function codeOf(fn: () => unknown): { code: string; data: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    assert.ok(ToolgateError.isInstance(e), 'a ToolgateError');
    return { code: e.code, data: e.data as Record<string, unknown> };
  }
  assert.fail('expected a refusal');
}

test('parses a complete tool-call.v1 envelope', () => {
  const env = parseEnvelope({ ...ok, attempt_id: 'a1', logical_effect_id: 'e1', tool_version: '1.0.0', idempotency_key: 'k', deadline: '2030-01-01T00:00:00Z' });
  assert.equal(env.task_id, 't1');
  assert.equal(env.deadline, '2030-01-01T00:00:00Z');
});

test('an unknown field is invalid_request with its JSON pointer', () => {
  const r = codeOf(() => parseEnvelope({ ...ok, surprise: 1 }));
  assert.equal(r.code, 'invalid_request');
  assert.deepEqual(r.data['faults'], [{ pointer: '/surprise', message: 'unknown field' }]);
});

test('an unknown protocol_version is unsupported_protocol_version', () => {
  const r = codeOf(() => parseEnvelope({ ...ok, protocol_version: 'tool-call.v9' }));
  assert.equal(r.code, 'unsupported_protocol_version');
  assert.deepEqual(r.data['supported'], ['tool-call.v1']);
});

for (const field of ['capability_id', 'principal', 'tenant']) {
  test(`a caller-supplied ${field} is refused: only the runtime sets it`, () => {
    const r = codeOf(() => parseEnvelope({ ...ok, [field]: 'admin' }));
    assert.equal(r.code, 'invalid_request');
    assert.equal(r.data['reason'], 'runtime_owned_field');
  });
}

test('malformed values name their pointer', () => {
  const r = codeOf(() => parseEnvelope({ ...ok, deadline: 'tomorrow', task_id: '../x' }));
  assert.equal(r.code, 'invalid_request');
  const pointers = (r.data['faults'] as { pointer: string }[]).map((f) => f.pointer).sort();
  assert.deepEqual(pointers, ['/deadline', '/task_id']);
});

test('a non-object envelope is invalid_request', () => {
  for (const v of [null, 3, 'x', [ok]]) assert.equal(codeOf(() => parseEnvelope(v)).code, 'invalid_request');
});

test('canonical JSON is RFC 8785: sorted keys, no whitespace, stable digests', () => {
  assert.equal(canonicalJson({ b: 1, a: [true, null, 'é'], c: 1e21 }), '{"a":[true,null,"é"],"b":1,"c":1e+21}');
  assert.equal(digestOf({ x: 1, y: 2 }), digestOf({ y: 2, x: 1 }));
});

test('error codes are unique', () => {
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
});

test('origin (a compatibility profile\'s call) parses when well formed and names its pointer when not', () => {
  const origin = { kind: 'profile.v1', profile: 'claude-code', tool: 'Edit', arguments_digest: digestOf({ file_path: '/w/a' }) };
  assert.deepEqual(parseEnvelope({ ...ok, origin }).origin, origin);
  for (const bad of [
    { ...origin, kind: 'profile.v2' },
    { ...origin, arguments_digest: 'sha256:xyz' },
    { ...origin, tool: '../x' },
    { ...origin, extra: 1 },
  ]) {
    const r = codeOf(() => parseEnvelope({ ...ok, origin: bad }));
    assert.equal(r.code, 'invalid_request');
    assert.ok((r.data['faults'] as { pointer: string }[]).every((f) => f.pointer.startsWith('/origin')), JSON.stringify(r.data));
  }
});
