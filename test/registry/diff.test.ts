import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { EffectClass } from '../../src/protocol/index.js';
import {
  Registry,
  defineTool,
  diffManifests,
  formatDiff,
  parseManifest,
  REGISTRY_DIFF_FORMAT,
  type AnyTool,
  type Manifest,
  type ManifestDiff,
  type ToolSpec,
} from '../../src/registry/index.js';

type Spec = ToolSpec<unknown, unknown, undefined>;

/** A real tool; every test changes one thing of it. */
function demoTool(over: Partial<Spec> = {}): AnyTool {
  const spec: Spec = {
    name: 'demo.fetch',
    version: '1.0.0',
    description: 'Fetch a demo record',
    owner: 'tests',
    effect_class: 'read',
    reversible: true,
    capabilities: ['fs.read'],
    args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast') }),
    result: z.strictObject({ text: z.string(), size: z.number().int() }),
    timeout_ms: 1000,
    max_output_bytes: 4096,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: () => Promise.resolve({ status: 'succeeded', result: { text: '', size: 0 } }),
    ...over,
  };
  return defineTool(spec) as unknown as AnyTool;
}

/** As `registry export` writes it and `registry diff` reads it back. */
function exported(...tools: AnyTool[]): Manifest {
  return parseManifest(JSON.parse(JSON.stringify(new Registry(tools).manifest)));
}

function summary(diff: ManifestDiff): string[] {
  return diff.changes.map((c) => [c.severity, c.kind, c.schema ?? '-', c.field === '' ? '(root)' : (c.field ?? '-')].join(' '));
}

function diffOf(before: AnyTool[], after: AnyTool[], now?: number): ManifestDiff {
  return diffManifests(exported(...before), exported(...after), now === undefined ? {} : { now });
}

describe('registry diff: compatible changes', () => {
  it('reports nothing and no break for identical registries', () => {
    const d = diffOf([demoTool()], [demoTool()]);
    assert.deepEqual(d.changes, []);
    assert.equal(d.breaking, false);
    assert.equal(d.format, REGISTRY_DIFF_FORMAT);
  });

  it('classifies a new optional request field with a default as compatible', () => {
    const d = diffOf(
      [demoTool()],
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), limit: z.number().int().default(10) }) })],
    );
    assert.deepEqual(summary(d), ['compatible field_added request limit']);
    assert.equal(d.changes[0]?.pointer, '/properties/limit');
    assert.equal(d.breaking, false);
  });

  it('classifies a new optional request field without a default as compatible', () => {
    const d = diffOf(
      [demoTool()],
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), tag: z.string().optional() }) })],
    );
    assert.deepEqual(summary(d), ['compatible field_added request tag']);
    assert.equal(d.breaking, false);
  });

  it('classifies a new response field, required or not, as compatible', () => {
    const d = diffOf(
      [demoTool()],
      [demoTool({ result: z.strictObject({ text: z.string(), size: z.number().int(), sha256: z.string(), note: z.string().optional() }) })],
    );
    assert.deepEqual(summary(d), ['compatible field_added response sha256', 'compatible field_added response note']);
    assert.equal(d.breaking, false);
  });

  it('classifies tool and field description changes as compatible', () => {
    const d = diffOf(
      [demoTool()],
      [
        demoTool({
          description: 'Fetch one demo record',
          args: z.strictObject({ path: z.string().min(1).describe('Where'), mode: z.enum(['fast', 'exact']).default('fast') }),
        }),
      ],
    );
    assert.deepEqual(summary(d), ['compatible description_changed - -', 'compatible description_changed request path']);
    assert.equal(d.breaking, false);
  });

  it('classifies a new tool as compatible', () => {
    const d = diffOf([demoTool()], [demoTool(), demoTool({ name: 'demo.list' })]);
    assert.deepEqual(summary(d), ['compatible tool_added - -']);
    assert.equal(d.changes[0]?.tool, 'demo.list');
    assert.equal(d.changes[0]?.from_version, null);
    assert.equal(d.changes[0]?.to_version, '1.0.0');
    assert.equal(d.breaking, false);
  });

  it('classifies a widened request enum, a loosened bound and a request that stops rejecting unknown fields as compatible', () => {
    const d = diffOf(
      [demoTool()],
      [demoTool({ args: z.object({ path: z.string(), mode: z.enum(['fast', 'exact', 'lazy']).default('fast') }) })],
    );
    assert.deepEqual(summary(d), [
      'compatible constraint_loosened request path',
      'compatible enum_widened request mode',
      'compatible unknown_fields_allowed request (root)',
    ]);
    assert.equal(d.breaking, false);
  });

  it('classifies a narrowed effect class and a removed capability as compatible', () => {
    const d = diffOf(
      [demoTool({ effect_class: 'write', capabilities: ['fs.read', 'fs.write'] })],
      [demoTool({ effect_class: 'read', capabilities: ['fs.read'] })],
    );
    assert.deepEqual(summary(d), ['compatible effect_class_narrowed - -', 'compatible capability_removed - -']);
    assert.equal(d.breaking, false);
  });

  it('allows removing a retired version whose migration window has ended', () => {
    const retired = demoTool({ deprecation: { state: 'retired', migration_window_ends: '2026-01-01T00:00:00Z' } });
    const v2 = demoTool({ version: '2.0.0' });
    const d = diffOf([retired, v2], [v2], Date.parse('2026-06-01T00:00:00Z'));
    assert.deepEqual(summary(d), ['compatible tool_version_removed - -']);
    assert.equal(d.breaking, false);
  });
});

describe('registry diff: breaking changes', () => {
  it('classifies a removed request field as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ path: z.string().min(1) }) })]);
    assert.deepEqual(summary(d), ['breaking field_removed request mode']);
    assert.equal(d.breaking, true);
  });

  it('classifies a renamed field as one breaking rename, not a removal and an addition', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ file: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast') }) })]);
    assert.deepEqual(summary(d), ['breaking field_renamed request path']);
    assert.equal(d.changes[0]?.before, 'path');
    assert.equal(d.changes[0]?.after, 'file');
    assert.equal(d.breaking, true);
  });

  it('classifies a removed response field as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ result: z.strictObject({ text: z.string() }) })]);
    assert.deepEqual(summary(d), ['breaking field_removed response size']);
    assert.equal(d.breaking, true);
  });

  it('classifies a changed field type as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ path: z.array(z.string()), mode: z.enum(['fast', 'exact']).default('fast') }) })]);
    assert.deepEqual(summary(d), ['breaking type_changed request path']);
    assert.deepEqual(d.changes[0]?.before, ['string']);
    assert.deepEqual(d.changes[0]?.after, ['array']);
    assert.equal(d.breaking, true);
  });

  it('classifies a new required request field as breaking', () => {
    const d = diffOf(
      [demoTool()],
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), owner: z.string() }) })],
    );
    assert.deepEqual(summary(d), ['breaking required_field_added request owner']);
    assert.equal(d.breaking, true);
  });

  it('classifies an optional request field that becomes required as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']) }) })]);
    assert.deepEqual(summary(d), ['breaking default_removed request mode', 'breaking field_became_required request mode']);
    assert.equal(d.breaking, true);
  });

  it('classifies a narrowed request enum as breaking and names the lost values', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast']).default('fast') }) })]);
    assert.deepEqual(summary(d), ['breaking enum_narrowed request mode']);
    assert.deepEqual(d.changes[0]?.before, ['exact']);
    assert.equal(d.breaking, true);
  });

  it('classifies a widened response enum and a response field that may now be null as breaking', () => {
    const before = demoTool({ result: z.strictObject({ kind: z.enum(['file', 'dir']), text: z.string() }) });
    const after = demoTool({ result: z.strictObject({ kind: z.enum(['file', 'dir', 'link']), text: z.string().nullable() }) });
    const d = diffOf([before], [after]);
    assert.deepEqual(summary(d), ['breaking enum_widened response kind', 'breaking type_widened response text']);
  });

  it('classifies a widened effect class as breaking, and a move between two irreversible classes too', () => {
    assert.deepEqual(summary(diffOf([demoTool()], [demoTool({ effect_class: 'network' })])), ['breaking effect_class_widened - -']);
    const from: EffectClass = 'delete';
    const to: EffectClass = 'send';
    const d = diffOf([demoTool({ effect_class: from })], [demoTool({ effect_class: to })]);
    assert.deepEqual(summary(d), ['breaking effect_class_changed - -']);
    assert.equal(d.breaking, true);
  });

  it('classifies a changed default value as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('exact') }) })]);
    assert.deepEqual(summary(d), ['breaking default_changed request mode']);
    assert.equal(d.changes[0]?.before, 'fast');
    assert.equal(d.changes[0]?.after, 'exact');
    assert.equal(d.breaking, true);
  });

  it('classifies a new capability dimension (a wider default scope) as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ capabilities: ['fs.read', 'network'] })]);
    assert.deepEqual(summary(d), ['breaking capability_added - -']);
    assert.deepEqual(d.changes[0]?.after, ['network']);
  });

  it('classifies a removed tool version and a removed tool as breaking', () => {
    const v1 = demoTool();
    const v2 = demoTool({ version: '2.0.0' });
    const other = demoTool({ name: 'demo.list' });
    const d = diffOf([v1, v2, other], [v2]);
    assert.deepEqual(summary(d), ['breaking tool_version_removed - -', 'breaking tool_removed - -']);
    assert.deepEqual(
      d.changes.map((c) => `${c.tool}@${c.from_version ?? ''}`),
      ['demo.fetch@1.0.0', 'demo.list@1.0.0'],
    );
    assert.equal(d.breaking, true);
  });

  it('classifies a request schema that newly rejects unknown fields as breaking', () => {
    const loose = demoTool({ args: z.object({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast') }) });
    const d = diffOf([loose], [demoTool()]);
    assert.deepEqual(summary(d), ['breaking unknown_fields_rejected request (root)']);
  });

  it('classifies a tightened request bound as breaking', () => {
    const d = diffOf([demoTool()], [demoTool({ args: z.strictObject({ path: z.string().min(1).max(255), mode: z.enum(['fast', 'exact']).default('fast') }) })]);
    assert.deepEqual(summary(d), ['breaking constraint_tightened request path']);
  });

  it('classifies retirement, lost reversibility, weaker idempotency, uninterruptible cancellation and a lower timeout as breaking', () => {
    const d = diffOf(
      [demoTool()],
      [
        demoTool({
          reversible: false,
          idempotency: 'reconcile',
          cancellation: 'uninterruptible',
          timeout_ms: 500,
          deprecation: { state: 'retired', migration_window_ends: '2027-01-01T00:00:00Z' },
        }),
      ],
    );
    assert.deepEqual(summary(d), [
      'breaking reversibility_lost - -',
      'breaking timeout_lowered - -',
      'breaking cancellation_changed - -',
      'breaking idempotency_weakened - -',
      'breaking deprecation_changed - -',
    ]);
  });
});

describe('registry diff: nested schemas', () => {
  const nestedArgs = (inner: z.ZodType, kind: z.ZodType) =>
    z.strictObject({
      path: z.string().min(1),
      mode: z.enum(['fast', 'exact']).default('fast'),
      edits: z.array(z.strictObject({ range: z.strictObject({ start: z.number().int(), end: inner }), kind })).optional(),
    });

  it('finds a change deep inside an array of objects and names its field path and pointer', () => {
    const d = diffOf(
      [demoTool({ args: nestedArgs(z.number().int(), z.enum(['insert', 'delete'])) })],
      [demoTool({ args: nestedArgs(z.string(), z.enum(['insert'])) })],
    );
    assert.deepEqual(summary(d), ['breaking type_changed request edits[].range.end', 'breaking enum_narrowed request edits[].kind']);
    assert.equal(d.changes[0]?.pointer, '/properties/edits/items/properties/range/properties/end');
    assert.equal(d.breaking, true);
  });

  it('treats a nested object that becomes nullable as a compatible request widening', () => {
    const inner = z.strictObject({ a: z.string() });
    const d = diffOf(
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), opts: inner }) })],
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), opts: inner.nullable() }) })],
    );
    assert.deepEqual(summary(d), ['compatible variant_added request opts']);
  });

  it('classifies a removed union alternative as breaking in a request', () => {
    const withUnion = (u: z.ZodType) => demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), target: u }) });
    const d = diffOf([withUnion(z.union([z.string(), z.strictObject({ line: z.number() })]))], [withUnion(z.string())]);
    assert.deepEqual(summary(d), ['breaking variant_removed request target']);
  });

  it('pairs discriminated-union alternatives by their tag, even when reordered', () => {
    const a = (x: z.ZodType) => z.strictObject({ kind: z.literal('a'), x });
    const b = z.strictObject({ kind: z.literal('b'), y: z.number() });
    const c = z.strictObject({ kind: z.literal('c'), z: z.boolean() });
    const withOp = (op: z.ZodType) => demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), op }) });
    const d = diffOf([withOp(z.discriminatedUnion('kind', [a(z.string()), b]))], [withOp(z.discriminatedUnion('kind', [c, a(z.number())]))]);
    assert.deepEqual(summary(d), ['breaking type_changed request op.x', 'breaking variant_removed request op', 'compatible variant_added request op']);
    assert.equal(d.changes[0]?.pointer, '/properties/op/oneOf/1/properties/x');
    assert.equal(d.changes[1]?.pointer, '/properties/op/oneOf/1');
    assert.equal(d.changes[2]?.pointer, '/properties/op/oneOf/0');
  });

  it('classifies a tuple that needs one more position and a map whose values narrow as breaking requests', () => {
    const withShapes = (t: z.ZodType, r: z.ZodType) => demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), t, r }) });
    const d = diffOf(
      [withShapes(z.tuple([z.string(), z.number()]), z.record(z.string(), z.number()))],
      [withShapes(z.tuple([z.string(), z.number(), z.boolean()]), z.record(z.string(), z.number().int()))],
    );
    assert.deepEqual(summary(d), [
      'breaking constraint_tightened request t',
      'compatible constraint_loosened request t',
      'breaking schema_keyword_changed request t',
      'breaking type_narrowed request r.*',
      'breaking constraint_tightened request r.*',
      'breaking constraint_tightened request r.*',
    ]);
  });

  it('compares recursive schemas without looping and finds a change inside the recursion', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const treeOf = (nameSchema: z.ZodString): z.ZodType<Node> => {
      const node: z.ZodType<Node> = z.strictObject({ name: nameSchema, children: z.lazy(() => z.array(node)) });
      return node;
    };
    const d = diffOf(
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), tree: treeOf(z.string()) }) })],
      [demoTool({ args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), tree: treeOf(z.string().max(64)) }) })],
    );
    assert.deepEqual(summary(d), ['breaking constraint_tightened request tree.name']);
    assert.equal(d.changes[0]?.pointer, '/$defs/__schema0/properties/name');
    assert.equal(d.breaking, true);
  });
});

describe('registry diff: versions and output forms', () => {
  it('compares what a caller that names no version got before and gets now when a new version takes over', () => {
    const v1 = demoTool();
    const v2 = demoTool({
      version: '2.0.0',
      args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast', 'exact']).default('fast'), owner: z.string() }),
    });
    const d = diffOf([v1], [v1, v2]);
    assert.deepEqual(summary(d), ['compatible tool_version_added - -', 'breaking required_field_added request owner']);
    assert.equal(d.changes[1]?.from_version, '1.0.0');
    assert.equal(d.changes[1]?.to_version, '2.0.0');
    assert.equal(d.breaking, true);
  });

  it('is not breaking when the new version only adds what is compatible', () => {
    const v1 = demoTool();
    const v11 = demoTool({ version: '1.1.0', result: z.strictObject({ text: z.string(), size: z.number().int(), lines: z.number().int() }) });
    const d = diffOf([v1], [v1, v11]);
    assert.deepEqual(summary(d), ['compatible tool_version_added - -', 'compatible field_added response lines']);
    assert.equal(d.breaking, false);
  });

  it('prints breaking changes first per tool and a verdict line, and round-trips as JSON', () => {
    const d = diffOf(
      [demoTool()],
      [demoTool({ description: 'New words', args: z.strictObject({ path: z.string().min(1), mode: z.enum(['fast']).default('fast') }) })],
    );
    const text = formatDiff(d);
    assert.equal(
      text,
      [
        'demo.fetch@1.0.0',
        '  BREAKING    enum_narrowed  request field mode: no longer allows "exact"',
        '  compatible  description_changed  description changed',
        '',
        '1 breaking, 1 compatible change',
        '',
      ].join('\n'),
    );
    assert.deepEqual(JSON.parse(JSON.stringify(d)), d);
    assert.equal(formatDiff(diffOf([demoTool()], [demoTool()])).startsWith('no changes'), true);
  });
});
