import type { z } from 'zod';
import type { Digest, EffectClass, TaskId } from '../protocol/index.js';
import { implementationDigestOf } from './implementation-digest.js';
import type { ExecuteContext, Normalized, NormalizeContext, ReconcileContext, ReconcileVerdict, ToolOutcome } from './context.js';

export type CapabilityDimension = 'fs.read' | 'fs.write' | 'process' | 'network' | 'git' | 'connector';

/**
 * How a retry of the same logical effect is treated:
 * - `safe_to_repeat`: repeating it changes nothing more (reads, compare-and-set writes);
 *   an ambiguous record is simply re-run.
 * - `reconcile`: an ambiguous record must be settled through `reconcile()` first.
 */
export type IdempotencyContract = 'safe_to_repeat' | 'reconcile';

/** How the tool stops when its signal aborts. */
export type CancellationMode = 'cooperative' | 'kill' | 'uninterruptible';

export type DeprecationState =
  | { readonly state: 'active' }
  | { readonly state: 'deprecated'; readonly replacement?: string }
  | {
      readonly state: 'retired';
      /** ISO-8601. Tasks pinned before retirement keep the version until then. */
      readonly migration_window_ends: string;
      /** ISO-8601: when a configured rollout retired it (absent when the tool's code did). */
      readonly retired_at?: string;
      readonly replacement?: string;
    };

export interface RedactionRules {
  /** JSON pointers into the result whose values are always replaced. */
  readonly fields: readonly string[];
  /** Scan string values for secret patterns. */
  readonly patterns: boolean;
}

export interface ToolSpec<A, R, P> {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly owner: string;
  readonly effect_class: EffectClass;
  readonly reversible: boolean;
  readonly capabilities: readonly CapabilityDimension[];
  readonly args: z.ZodType<A>;
  readonly result: z.ZodType<R>;
  readonly timeout_ms: number;
  readonly max_output_bytes: number;
  readonly cancellation: CancellationMode;
  readonly idempotency: IdempotencyContract;
  /**
   * Its succeeded receipts carry mutation evidence (src/resources/mutation) that fs.undo can
   * restore. Wiring between tools, not part of the manifest: agents see `reversible`.
   */
  readonly undoable?: boolean;
  readonly redaction?: RedactionRules;
  /**
   * Top-level members of the result (`/content`) that hold workspace content the result also
   * names by path, sha256 and revision: with receipt retention `digest` (the default) the
   * stored receipt keeps their digest instead of a copy (docs/protocol.md#retention).
   */
  readonly bound?: readonly string[];
  readonly deprecation?: DeprecationState;
  /** Digest of the implementation; derived from the code when absent (see `module`). */
  readonly implementation_digest?: string;
  /**
   * The defining module's URL (`import.meta.url`): the implementation digest is then the digest
   * of the module files in its folder (docs/registry.md). Without it, the text of the functions.
   */
  readonly module?: string | URL;
  /**
   * The request and response schemas as JSON Schema, when the tool has them as data (an upstream
   * MCP tool's own inputSchema/outputSchema): the manifest and MCP listing show these instead of
   * what `z.toJSONSchema(args)` would write.
   */
  readonly json_schemas?: { readonly request: Readonly<Record<string, unknown>>; readonly response: Readonly<Record<string, unknown>> };
  normalize(args: A, ctx: NormalizeContext): Normalized<P> | Promise<Normalized<P>>;
  execute(ctx: ExecuteContext<A, P>): Promise<ToolOutcome<R>>;
  reconcile?(ctx: ReconcileContext): Promise<ReconcileVerdict>;
  /**
   * Releases what the tool holds for a task beyond its calls (shell.session's sessions): the
   * runtime calls it when the task ends (cancelTask, endTask, the MCP session's end).
   */
  endTask?(task: TaskId): Promise<void>;
  /** Releases everything the tool holds; the runtime calls it on close. */
  dispose?(): Promise<void>;
}

export interface ToolDefinition<A = unknown, R = unknown, P = unknown> extends ToolSpec<A, R, P> {
  readonly undoable: boolean;
  readonly redaction: RedactionRules;
  readonly deprecation: DeprecationState;
  readonly implementation_digest: string;
  /** `name@version`. */
  readonly key: string;
}

export type AnyTool = ToolDefinition<never, unknown, never>;

/** Declares a tool. The entry is plain data plus its functions; registering it is separate. */
export function defineTool<A, R, P = undefined>(spec: ToolSpec<A, R, P>): ToolDefinition<A, R, P> {
  if (!/^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$/.test(spec.name)) throw new TypeError(`tool name ${spec.name}: family.verb`);
  if (!/^\d+\.\d+\.\d+$/.test(spec.version)) throw new TypeError(`tool ${spec.name}: version must be MAJOR.MINOR.PATCH`);
  for (const b of spec.bound ?? []) if (!/^\/[^/~]+$/.test(b)) throw new TypeError(`tool ${spec.name}: bound member ${b} is not a top-level JSON pointer`);
  const implementation_digest: Digest | string = spec.implementation_digest ?? implementationDigestOf(spec, spec.module);
  return {
    ...spec,
    undoable: spec.undoable ?? false,
    redaction: spec.redaction ?? { fields: [], patterns: true },
    deprecation: spec.deprecation ?? { state: 'active' },
    implementation_digest,
    key: `${spec.name}@${spec.version}`,
  };
}

/**
 * A typed definition as a registry entry. The registry holds tools of every argument and result
 * type side by side; the pipeline validates arguments with the tool's own schema before it
 * calls it, which is what makes this one cast sound.
 */
export function anyTool<A, R, P>(tool: ToolDefinition<A, R, P>): AnyTool {
  return tool as unknown as AnyTool;
}
