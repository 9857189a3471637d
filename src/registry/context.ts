// What a tool sees while it runs. Declared here, in the registry layer, so that tools depend
// on interfaces and the runtime supplies the implementations (stores, artifacts, tokens).
import type {
  ArtifactRef,
  AttemptId,
  CallStatus,
  Decision,
  Digest,
  ErrorBody,
  LogicalEffectId,
  NormalizedAction,
  PartialEffect,
  Receipt,
  ReceiptId,
  Resource,
  TaskId,
  EffectClass,
} from '../protocol/index.js';
import type { DestinationGrant, TreePacer, Workspace } from '../resources/index.js';

/** Content-addressed blob storage for large outputs and preimages. */
export interface ArtifactSink {
  put(data: Uint8Array | string, mediaType: string, role: string): ArtifactRef;
  get(digest: Digest): Buffer;
  /**
   * As get, read and checked a slice at a time, the event loop let run between slices by
   * `pacer` (a preimage of 200 MB held it 0.5 s to read and hash). Optional: get is the fallback.
   */
  getPaced?(digest: Digest, pacer: TreePacer): Promise<Buffer>;
  /** Streams into the store; the ref is known once the stream ends. */
  writer(mediaType: string, role: string): ArtifactWriter;
  /**
   * Every blob sealed so far is on disk under its name (its folder synced). The commit stage
   * waits for it before a receipt; an effect whose undo needs a blob waits for it before the
   * effect. Optional: a sink without it keeps no names to sync.
   */
  durable?(): Promise<void>;
}

export interface ArtifactWriter {
  write(chunk: Uint8Array): void;
  /**
   * Makes the bytes written so far durable now (fsync); a close with nothing written since does
   * not sync again. Optional: a writer that holds bytes back (redaction) has none.
   */
  sync?(): void;
  /**
   * The same sync on the libuv pool: the event loop runs meanwhile (a large blob's fsync took
   * hundreds of ms on it). No write may be made until it settles. Optional, like sync.
   */
  syncAsync?(): Promise<void>;
  /** Seals the blob: fsync (unless a sync covered every byte), rename to its digest. */
  close(): ArtifactRef;
  abort(): void;
}

/** Signs and checks continuation tokens (HMAC), bound to the task that asked. */
export interface TokenCodec {
  sign(kind: string, payload: Readonly<Record<string, unknown>>): string;
  /** Throws `invalid_continuation` when tampered, of another kind, or of another task. */
  verify(kind: string, token: string): Record<string, unknown>;
}

/** The workspace revision: Toolgate's own mutation counter (docs/revisions.md), kept in the store. */
export interface RevisionSource {
  current(): Promise<string>;
  /** Called by a tool after it changed the workspace; returns the new revision. */
  advance(): Promise<string>;
}

export interface ReceiptLookup {
  get(id: ReceiptId): Promise<Receipt | undefined>;
}

export interface ProgressSink {
  (progress: { readonly progress: number; readonly total?: number; readonly message?: string }): void;
}

export interface NormalizeContext {
  readonly workspace: Workspace;
  readonly task_id: TaskId;
  /** Stored receipts, for tools whose resources are named by a receipt (fs.undo). */
  readonly receipts: ReceiptLookup;
  /**
   * Whether the task's grant covers a resource, for a tool that chooses the access it asks for
   * (shell.exec binds the workspace read-only when write is not granted). Authorization still
   * decides the whole normalized action.
   */
  grants(resource: Resource): Promise<boolean>;
  /**
   * The task's grant as resources/net asks it (hosts, private_addresses, caveats), for a tool
   * that authorizes a network destination before policy sees the call (http.request).
   */
  destinationGrant?(): Promise<DestinationGrant>;
}

/** What normalize returns: every resource in canonical form, plus tool-private data for execute. */
export interface Normalized<P = undefined> {
  readonly resources: readonly Resource[];
  /** A stronger class than the tool's default, when these arguments call for it (e.g. network). */
  readonly effect_class?: EffectClass;
  /** Binds the action (and so its approval) to this digest of what the tool declared (upstream tools). */
  readonly tool_digest?: string;
  /** Every call of this tool needs an approval, whatever policy would otherwise allow (a connector manifest). */
  readonly approval_required?: boolean;
  /** What an approval binds in place of the raw arguments (NormalizedAction.binding_digest): JSON, digested by the pipeline. */
  readonly binding?: unknown;
  readonly prepared: P;
}

export interface ExecuteContext<A, P = undefined> {
  readonly args: A;
  readonly prepared: P;
  readonly action: NormalizedAction;
  /** Carries the deadline, client cancellation and task cancellation. */
  readonly signal: AbortSignal;
  /** Absolute epoch milliseconds. */
  readonly deadline: number;
  readonly task_id: TaskId;
  readonly attempt_id: AttemptId;
  readonly logical_effect_id: LogicalEffectId | null;
  /** The envelope's idempotency_key: with the task and logical_effect_id, what names the effect to a provider. */
  readonly idempotency_key?: string | null;
  readonly workspace: Workspace;
  readonly artifacts: ArtifactSink;
  readonly tokens: TokenCodec;
  readonly revision: RevisionSource;
  readonly receipts: ReceiptLookup;
  readonly progress: ProgressSink;
  /** Host paths outside the workspace that nothing a tool runs may see (the runtime's state dir). */
  readonly hidden_paths: readonly string[];
  /** This workspace's package-cache folder on the host (under the state dir), for sandboxed commands; absent: none. */
  readonly cache_dir?: string;
  /** Values that must never be recorded: redacted from everything the receipt holds. */
  addSecret(value: string): void;
  /**
   * Declares that the effect may have started. A failure after this point is ambiguous unless
   * the tool says what happened; before it, a failure is safe to retry. `intent` is what the
   * tool's reconcile() needs to settle the effect after a crash (paths, pre- and post-image
   * digests: never content); it is durable in the effect record before this returns. A tool
   * may call markSent again with a fuller intent before a later step of the same effect.
   * Await it before the effect: the record is durable when it resolves.
   */
  markSent(intent?: EffectIntent): Promise<void>;
  /**
   * Grant ∧ policy for this same call as if it named `resources` (and `effect_class`): what a
   * tool asks before it reaches a resource it met mid-call (a redirect to another host). Nothing
   * is opened or counted: `ask` and `deny` both mean "not in this call"; a new call naming the
   * resource gets its own decision and approval.
   */
  recheck?(change: { readonly resources: readonly Resource[]; readonly effect_class?: EffectClass }): Promise<Recheck>;
}

/** A decision made mid-call by `recheck`, with the action it was made for. */
export interface Recheck extends Decision {
  readonly action_digest: Digest;
}

/** A tool's answer. Domain failures are outcomes, never exceptions. */
export interface ToolOutcome<R> {
  readonly status: CallStatus;
  readonly result: R | null;
  readonly error?: ErrorBody;
  readonly truncated?: boolean;
  readonly partial?: PartialEffect;
  readonly evidence?: Readonly<Record<string, unknown>>;
  readonly artifacts?: readonly ArtifactRef[];
  /**
   * For a string cut from a larger whole (a page of a file): the text around it, so that the
   * redact stage finds a secret straddling the cut (src/redact, docs/redaction.md).
   */
  readonly redaction_windows?: readonly RedactionWindow[];
}

export interface RedactionWindow {
  /** Absolute JSON pointer of the string in the receipt, e.g. `/result/content`. */
  readonly pointer: string;
  readonly before: string;
  readonly after: string;
}

/**
 * What a tool records at markSent for its reconcile(): JSON of paths and digests, stored
 * (redacted) in the effect record. Never file contents, scripts or other argument values.
 */
export type EffectIntent = Readonly<Record<string, unknown>>;

export interface ReconcileContext {
  readonly workspace: Workspace;
  readonly artifacts: ArtifactSink;
  readonly task_id: TaskId;
  readonly logical_effect_id: LogicalEffectId | null;
  /** The intent the tool recorded at markSent; null when it recorded none (or never sent). */
  readonly intent: EffectIntent | null;
  /**
   * The validated arguments when reconcile runs for a retry of the same call (same argument
   * digest); null when an operator runs it: arguments are not stored.
   */
  readonly arguments: unknown;
  readonly action: NormalizedAction | null;
  /** A reconcile that finds the effect done advances the revision (the workspace changed). */
  readonly revision: RevisionSource;
}

/**
 * What reconcile found at the authoritative resource. `completed` may rebuild the result the
 * call would have returned, so that the recovered receipt reads like the original.
 */
export type ReconcileVerdict =
  | { readonly settled: 'completed'; readonly evidence: Readonly<Record<string, unknown>>; readonly result?: unknown }
  | { readonly settled: 'released'; readonly evidence: Readonly<Record<string, unknown>> }
  | { readonly settled: 'unknown'; readonly reason: string };
