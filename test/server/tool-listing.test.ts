import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { EffectClass } from '../../src/protocol/index.js';
import { defineTool, entryOf, type AnyTool, type ToolSpec } from '../../src/registry/index.js';
import { annotationsOf, mcpToolName, outputSchemaOf, ToolListing, toolDefinitionOf } from '../../src/server/index.js';

type Spec = ToolSpec<unknown, unknown, undefined>;

function tool(over: Partial<Spec> = {}): AnyTool {
  const spec: Spec = {
    name: 'demo.run',
    version: '1.2.3',
    description: 'demo',
    owner: 'tests',
    effect_class: 'read',
    reversible: true,
    capabilities: [],
    args: z.strictObject({ a: z.string() }),
    result: z.strictObject({ b: z.string() }),
    timeout_ms: 1000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: () => Promise.resolve({ status: 'succeeded', result: { b: '' } }),
    ...over,
  };
  return defineTool(spec) as unknown as AnyTool;
}

describe('registry entries as MCP tools', () => {
  it('replaces every dot of the name with an underscore', () => {
    assert.equal(mcpToolName('fs.read'), 'fs_read');
    assert.equal(mcpToolName('git.remote.push'), 'git_remote_push');
  });

  it('derives the four hints from effect class, reversibility and the idempotency contract', () => {
    const hints = (effect_class: EffectClass, reversible: boolean, idempotency: 'safe_to_repeat' | 'reconcile') => {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = annotationsOf(entryOf(tool({ effect_class, reversible, idempotency })));
      return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
    };
    assert.deepEqual(hints('read', true, 'safe_to_repeat'), { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(hints('write', true, 'safe_to_repeat'), { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(hints('write', false, 'reconcile'), { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    assert.deepEqual(hints('execute', false, 'reconcile'), { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    assert.deepEqual(hints('network', true, 'safe_to_repeat'), { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
    assert.deepEqual(hints('send', false, 'reconcile'), { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  it('keeps $defs references resolvable when the result schema moves under anyOf', () => {
    interface Node {
      name: string;
      kids: Node[];
    }
    const node: z.ZodType<Node> = z.strictObject({ name: z.string(), kids: z.lazy(() => z.array(node)) });
    const schema = outputSchemaOf(entryOf(tool({ result: z.strictObject({ root: node }) })));
    const defs = schema['$defs'] as Record<string, unknown>;
    const anyOf = schema['anyOf'] as Record<string, unknown>[];
    const ref = ((anyOf[0]?.['properties'] as Record<string, { $ref: string }>)['root'] ?? assert.fail('no root')).$ref;
    assert.ok(ref.startsWith('#/$defs/'), ref);
    assert.ok(defs[ref.slice('#/$defs/'.length)], `definition for ${ref} at the root`);
    assert.equal(anyOf[0]?.['$defs'], undefined);
  });

  it('refuses two registry names that collide as MCP names, and a non-object result schema', () => {
    assert.throws(() => new ToolListing([entryOf(tool({ name: 'a_b.c' })), entryOf(tool({ name: 'a.b_c' }))]), /both map to MCP name a_b_c/);
    assert.throws(() => toolDefinitionOf(entryOf(tool({ result: z.array(z.string()) }))), /response schema is not an object/);
  });

  it('maps an unknown family_verb back to family.verb so the runtime refuses it as unknown_tool', () => {
    const listing = new ToolListing([entryOf(tool())]);
    assert.equal(listing.registryName('demo_run'), 'demo.run');
    assert.equal(listing.registryName('fs_write'), 'fs.write');
  });
});
