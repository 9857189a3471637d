// One JSON-pointer implementation (RFC 6901) for every layer: keys holding `/` and `~` survive
// a round trip, and the schema diff and grant-file faults use it (the grant file built its own
// pointers without escaping).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapePointerToken, jsonPointer, pointerTokens, unescapePointerToken } from '../../src/protocol/index.js';
import { parseGrantFile, GrantFileError } from '../../src/policy/index.js';
import { diffSchemas } from '../../src/registry/schema-diff.js';

describe('JSON pointers (RFC 6901)', () => {
  it('escapes ~ before / and unescapes in the reverse order', () => {
    assert.equal(jsonPointer(['a/b', 'm~n', '~1', 0]), '/a~1b/m~0n/~01/0');
    assert.deepEqual(pointerTokens('/a~1b/m~0n/~01/0'), ['a/b', 'm~n', '~1', '0']);
    assert.equal(jsonPointer([]), '');
    assert.deepEqual(pointerTokens(''), []);
    assert.deepEqual(pointerTokens('/'), ['']);
    assert.equal(pointerTokens('a/b'), null);
    // RFC 6901 §5's examples
    assert.equal(escapePointerToken('a/b'), 'a~1b');
    assert.equal(unescapePointerToken('m~0n'), 'm~n');
  });

  it('round-trips any path of keys', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', '/', '~', '0', '1', 'é') })), (keys) => {
        assert.deepEqual(pointerTokens(jsonPointer(keys)), keys);
      }),
    );
  });

  it('the schema diff names a field holding / and ~ by its escaped pointer and follows an escaped $ref', () => {
    const before = {
      type: 'object',
      properties: { 'a/b~c': { $ref: '#/$defs/x~1y' } },
      $defs: { 'x/y': { type: 'object', properties: { n: { type: 'string' } } } },
    };
    const after = {
      type: 'object',
      properties: { 'a/b~c': { $ref: '#/$defs/x~1y' } },
      $defs: { 'x/y': { type: 'object', properties: { n: { type: 'integer' } } } },
    };
    const findings = diffSchemas('request', before, after);
    assert.ok(findings.length > 0, 'the type change behind the escaped $ref was found');
    assert.ok(
      findings.some((f) => pointerTokens(f.pointer)?.includes('x/y')),
      findings.map((f) => f.pointer).join(', '),
    );
    const removed = diffSchemas('request', before, { ...before, properties: {} });
    assert.deepEqual(
      removed.map((f) => f.pointer),
      ['/properties/a~1b~0c'],
    );
  });

  it('grant-file faults carry JSON pointers from the same implementation', () => {
    assert.throws(
      () => parseGrantFile({ read: ['ok', ''] }),
      (e: unknown) => e instanceof GrantFileError && e.faults[0]?.pointer === jsonPointer(['read', 1]),
    );
  });
});
