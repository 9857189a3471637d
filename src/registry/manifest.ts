import { z } from 'zod';
import { digestOf, type Digest } from '../protocol/index.js';
import type { AnyTool, CapabilityDimension, CancellationMode, DeprecationState, IdempotencyContract, RedactionRules } from './define.js';
import type { EffectClass } from '../protocol/index.js';

export const MANIFEST_FORMAT = 'toolgate.registry.v1';

/** A registry entry as data: what `registry export` writes and `registry diff` compares. */
export interface ManifestEntry {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly owner: string;
  readonly effect_class: EffectClass;
  readonly reversible: boolean;
  readonly capabilities: readonly CapabilityDimension[];
  readonly request_schema: Readonly<Record<string, unknown>>;
  readonly response_schema: Readonly<Record<string, unknown>>;
  readonly timeout_ms: number;
  readonly max_output_bytes: number;
  readonly cancellation: CancellationMode;
  readonly idempotency: IdempotencyContract;
  readonly redaction: RedactionRules;
  readonly deprecation: DeprecationState;
  readonly implementation_digest: string;
}

export interface Manifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly revision: Digest;
  readonly tools: readonly ManifestEntry[];
}

export function entryOf(tool: AnyTool): ManifestEntry {
  return {
    name: tool.name,
    version: tool.version,
    description: tool.description,
    owner: tool.owner,
    effect_class: tool.effect_class,
    reversible: tool.reversible,
    capabilities: [...tool.capabilities].sort(),
    request_schema: tool.json_schemas?.request ?? (z.toJSONSchema(tool.args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
    response_schema: tool.json_schemas?.response ?? (z.toJSONSchema(tool.result, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
    timeout_ms: tool.timeout_ms,
    max_output_bytes: tool.max_output_bytes,
    cancellation: tool.cancellation,
    idempotency: tool.idempotency,
    redaction: tool.redaction,
    deprecation: tool.deprecation,
    implementation_digest: tool.implementation_digest,
  };
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A revision is the digest of all entries, in name then version order. */
export function buildManifest(entries: readonly ManifestEntry[]): Manifest {
  const tools = [...entries].sort((x, y) => (x.name === y.name ? compareVersions(x.version, y.version) : x.name < y.name ? -1 : 1));
  return { format: MANIFEST_FORMAT, revision: digestOf(tools), tools };
}

const manifestShape = z.object({
  format: z.literal(MANIFEST_FORMAT),
  revision: z.string(),
  tools: z.array(z.looseObject({ name: z.string(), version: z.string() })),
});

/** Reads an exported manifest; the revision must match its content. */
export function parseManifest(value: unknown): Manifest {
  const parsed = manifestShape.safeParse(value);
  if (!parsed.success) throw new TypeError(`not a ${MANIFEST_FORMAT} export: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const manifest = value as Manifest;
  const recomputed = digestOf(manifest.tools);
  if (recomputed !== manifest.revision) throw new TypeError(`manifest revision ${manifest.revision} does not match its content (${recomputed})`);
  return manifest;
}
