import { canonicalJson, sha256Hex, type Digest } from './canonical.js';
import type { ErrorBody } from './error.js';
import type { Decision, NormalizedAction } from './action.js';
import type { AttemptId, LogicalEffectId, ReceiptId, TaskId } from './ids.js';
import { PROTOCOL_VERSION } from './envelope.js';
import type { ProfileOrigin } from './origin.js';

export const CALL_STATUSES = [
  'succeeded',
  'failed',
  'denied',
  'expired',
  'cancelled',
  'timed_out',
  'ambiguous',
  'accepted_async',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export interface ArtifactRef {
  readonly digest: Digest;
  readonly bytes: number;
  readonly media_type: string;
  /** What the artifact holds, e.g. `result`, `stdout`, `preimage:src/a.ts`. */
  readonly role: string;
}

export interface RedactionNote {
  /** JSON pointer into the receipt's `result` (or `error`) where something was redacted. */
  readonly pointer: string;
  readonly kind: 'field' | 'pattern' | 'secret_value';
  readonly rule: string;
  readonly count: number;
}

/**
 * A string of the result that the stored receipt binds by its digest instead of holding it
 * (retention `digest`, docs/protocol.md#retention): workspace content the result also names by
 * path and revision, such as the page an fs.read returned. The stored result lacks the member;
 * the receipt `call()` returns has it, and its digest is that of the stored form.
 */
export interface BoundValue {
  /** JSON pointer of the member, from the receipt root (e.g. `/result/content`). */
  readonly pointer: string;
  /** sha256 of the string's UTF-8 bytes. */
  readonly sha256: Digest;
  readonly bytes: number;
}

export interface PartialEffect {
  readonly applied: readonly string[];
  readonly unapplied: readonly string[];
  readonly restored: readonly string[];
}

/** A task's receipts came from one runtime, then from another (docs/release.md#rollback). */
export interface RuntimeChange {
  readonly from: Digest;
  readonly to: Digest;
}

/** A program on the host the runtime runs (bubblewrap, ripgrep, git, script, chromium), as found. */
export interface HostToolRecord {
  readonly name: string;
  /** The file found on PATH and the file it resolves to through links; null when not found. */
  readonly path: string | null;
  readonly resolved: string | null;
  /** First line of its `--version`. */
  readonly version: string | null;
  /** Hex sha256 of the resolved file. */
  readonly sha256: string | null;
}

export interface Receipt {
  readonly receipt_id: ReceiptId;
  readonly protocol_version: string;
  readonly task_id: TaskId;
  readonly attempt_id: AttemptId;
  readonly logical_effect_id: LogicalEffectId | null;
  readonly idempotency_key: string | null;
  readonly tool: string;
  readonly tool_version: string | null;
  readonly registry_revision: Digest | null;
  readonly status: CallStatus;
  readonly started_at: string;
  readonly finished_at: string;
  readonly queued_ms: number;
  readonly normalized_action: NormalizedAction | null;
  readonly decision: Decision | null;
  readonly result: unknown;
  readonly error: ErrorBody | null;
  readonly truncated: boolean;
  readonly partial: PartialEffect | null;
  /** What proves the effect happened (new revision, digests, provider ids). */
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly artifacts: readonly ArtifactRef[];
  readonly redactions: readonly RedactionNote[];
  /** True when this is a stored receipt handed back for a repeated idempotency key. Not digested. */
  readonly replay: boolean;
  /**
   * True when the call found the same key's effect running in this runtime, waited for it and
   * got its receipt (also `replay: true`; docs/protocol.md#long-calls). Not digested, never stored.
   */
  readonly attached?: boolean;
  readonly prev_receipt_digest: Digest | null;
  readonly digest: Digest;
  /** The envelope's `origin` (a compatibility profile's call); absent on native calls. Digested. */
  readonly origin?: ProfileOrigin;
  /** Result members bound by digest rather than stored (retention `digest`); absent when none. Digested. */
  readonly bound?: readonly BoundValue[];
  /** The runtime that made the receipt: the digest of its manifest (docs/release.md). Digested. */
  readonly runtime_digest?: Digest;
  /** On a task's first receipt under another runtime than the one it last ran on. Digested. */
  readonly runtime_changed?: RuntimeChange;
  /** The host tools, on a task's first receipt (and with `runtime_changed`). Digested. */
  readonly host_tools?: readonly HostToolRecord[];
}

export type ReceiptBody = Omit<Receipt, 'receipt_id' | 'digest' | 'replay' | 'attached'>;

/** The digest covers everything but the id (derived from it), itself, and the replay flag. */
export function receiptDigest(body: ReceiptBody): Digest {
  return digestOfCanonical(canonicalJson(body));
}

function digestOfCanonical(text: string): Digest {
  return `sha256:${sha256Hex(text)}` as Digest;
}

export function sealReceipt(body: ReceiptBody): Receipt {
  return sealCanonical(body).receipt;
}

/**
 * Seals a body and gives its canonical JSON too: the one serialization a receipt needs, hashed
 * for its digest and stored as it is (a store keeps `text` and derives the id from the digest).
 */
export function sealCanonical(body: ReceiptBody): { receipt: Receipt; text: string } {
  const text = canonicalJson(body);
  const digest = digestOfCanonical(text);
  return { receipt: { receipt_id: receiptIdOf(digest, body.started_at), ...body, digest, replay: false }, text };
}

/**
 * A receipt from its stored row: the canonical body `sealCanonical` gave as `text` with the row's
 * digest and id (the id is stored, not derived again: a store holds ids of both forms,
 * `receiptIdOf`), or (stores written before `sealCanonical`) the whole receipt as JSON, which
 * carries its own digest and id.
 */
export function unsealCanonical(text: string, digest: Digest, id: string): Receipt {
  const parsed = JSON.parse(text) as ReceiptBody & { digest?: Digest };
  if (parsed.digest !== undefined) return parsed as unknown as Receipt;
  return { receipt_id: id as ReceiptId, ...parsed, digest, replay: false };
}

/** The largest start time an id can carry: 12 hex digits of milliseconds (year 10889). */
const MAX_ID_MS = 0xffff_ffff_ffff;

/**
 * A receipt's id: `rcpt_`, the call's `started_at` as 12 hex digits of milliseconds since the
 * epoch, then the first 20 hex digits of its digest. Both parts are digested fields, so the id
 * is still derived from the receipt alone, and it sorts by start time: a store's index of ids
 * takes each new one at its end (a batch of receipts dirties one leaf of it, not one leaf each,
 * and on a store of 10^6 receipts that leaf is in the cache), where an id of digest digits only
 * landed on a random leaf (docs/protocol.md#receipt). A `started_at` that does not parse, or
 * lies before 1970, counts as 0.
 */
export function receiptIdOf(digest: Digest, startedAt: string): ReceiptId {
  const ms = Date.parse(startedAt);
  const at = Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_ID_MS) : 0;
  return `rcpt_${at.toString(16).padStart(12, '0')}${digest.slice('sha256:'.length, 'sha256:'.length + 20)}` as ReceiptId;
}

/** The id receipts had before 2026-12-06 (`rcpt_` + the first 32 hex digits of the digest): still valid on the receipts that carry it. */
export function legacyReceiptIdOf(digest: Digest): ReceiptId {
  return `rcpt_${digest.slice('sha256:'.length, 'sha256:'.length + 32)}` as ReceiptId;
}

/** Whether `id` is the id a receipt of this digest and start time derives, in either form (`receiptIdOf`, `legacyReceiptIdOf`). */
export function receiptIdMatches(id: string, digest: Digest, startedAt: string): boolean {
  return id === receiptIdOf(digest, startedAt) || id === legacyReceiptIdOf(digest);
}

/** Strips the fields outside the digest, to recompute it (audit verify). */
export function bodyOf(receipt: Receipt): ReceiptBody {
  const { receipt_id: _id, digest: _digest, replay: _replay, attached: _attached, ...body } = receipt;
  return body;
}

/**
 * The fields every receipt starts from, before the stages fill in what they learn (the store
 * adds `prev_receipt_digest` when it chains the receipt).
 */
export function receiptSkeleton(task: TaskId, attempt: AttemptId, startedAt: string): Omit<ReceiptBody, 'prev_receipt_digest'> {
  return {
    protocol_version: PROTOCOL_VERSION,
    task_id: task,
    attempt_id: attempt,
    logical_effect_id: null as LogicalEffectId | null,
    idempotency_key: null,
    tool: '',
    tool_version: null,
    registry_revision: null,
    status: 'failed',
    started_at: startedAt,
    finished_at: startedAt,
    queued_ms: 0,
    normalized_action: null,
    decision: null,
    result: null,
    error: null as ErrorBody | null,
    truncated: false,
    partial: null,
    evidence: {},
    artifacts: [],
    redactions: [],
  };
}
