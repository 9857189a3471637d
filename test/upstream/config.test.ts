import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StartupError } from '../../src/protocol/index.js';
import { parseUpstreams } from '../../src/upstream/index.js';

describe('upstreams configuration', () => {
  it('fills the defaults: no network, unmanifested refused, a 60 s call timeout, manifest version 1.0.0', () => {
    const u = parseUpstreams({ issues: { command: 'node', tools: { list: { effect: 'read' } } } });
    const issues = u['issues'] as Record<string, unknown> & { tools: Record<string, { version: string; resources: unknown[]; approval: boolean }> };
    assert.equal(issues['network'], 'none');
    assert.equal(issues['unmanifested'], 'refuse');
    assert.equal(issues['call_timeout_ms'], 60_000);
    assert.deepEqual(issues.tools['list'], { effect: 'read', version: '1.0.0', resources: [], approval: false });
  });

  it('refuses, with the pointer of each fault: a reserved name or namespace, an unknown effect class, an unknown field, a header value written in the file', () => {
    const cases: [unknown, RegExp][] = [
      [{ fs: { command: 'node' } }, /\/upstreams\/fs.*reserved/],
      // A namespace would give an upstream the reserved names as well.
      [{ mine: { command: 'node', namespace: 'shell' } }, /\/upstreams\/mine\/namespace.*reserved/],
      [{ a: { command: 'node', tools: { t: { effect: 'write' } } } }, /\/upstreams\/a/],
      [{ a: { command: 'node', sandbox: false } }, /\/upstreams\/a/],
      [{ a: { url: 'https://x.example/mcp', headers: { Authorization: 'Bearer literal' } } }, /\/upstreams\/a/],
    ];
    for (const [value, pattern] of cases) {
      assert.throws(
        () => parseUpstreams(value as never),
        (e: unknown) => StartupError.isInstance(e) && e.code === 'invalid_config' && pattern.test(e.message),
        JSON.stringify(value),
      );
    }
  });
});
