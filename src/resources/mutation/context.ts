// What the mutation kit needs from the call it runs in, as the narrowest interfaces that say
// so. A tool passes its own ExecuteContext or ReconcileContext (src/registry/context.ts), which
// satisfy these as they are; the compiler checks that at every call. Declared here, not taken
// from the registry, because the registry's contexts name the Workspace of this layer: importing
// them back would close a loop between resources and registry.
import type { ArtifactRef, CallStatus, Digest, ErrorBody, PartialEffect } from '../../protocol/index.js';
import type { Workspace } from '../paths/workspace.js';

/** What a tool records at markSent for its reconcile: paths and digests, never contents. */
export type MutationIntent = Readonly<Record<string, unknown>>;

/** Where preimages are kept: the call's artifact store. */
/** What a preimage artifact is written with (the artifact store's writer). */
export interface PreimageWriter {
  write(chunk: Uint8Array): void;
  sync?(): void;
  syncAsync?(): Promise<void>;
  close(): ArtifactRef;
  abort(): void;
}

export interface PreimageStore {
  put(data: Uint8Array | string, mediaType: string, role: string): ArtifactRef;
  get(digest: Digest): Buffer;
  writer(mediaType: string, role: string): PreimageWriter;
}

/** The workspace revision, advanced once the workspace changed. */
export interface MutationRevision {
  current(): Promise<string>;
  advance(): Promise<string>;
}

/** The part of a tool's ExecuteContext a commit uses. */
export interface MutationContext {
  readonly workspace: Workspace;
  readonly artifacts: PreimageStore;
  readonly revision: MutationRevision;
  markSent(intent?: MutationIntent): Promise<void>;
}

/** The part of a tool's ReconcileContext the file-set reconcile uses. */
export interface MutationReconcileContext {
  readonly workspace: Workspace;
  readonly artifacts: PreimageStore;
  readonly revision: MutationRevision;
  readonly intent: MutationIntent | null;
}

/** A reconcile verdict (the registry's ReconcileVerdict) of a file set. */
export type MutationVerdict =
  | { readonly settled: 'completed'; readonly evidence: Readonly<Record<string, unknown>> }
  | { readonly settled: 'released'; readonly evidence: Readonly<Record<string, unknown>> }
  | { readonly settled: 'unknown'; readonly reason: string };

/** A failed tool outcome (the registry's ToolOutcome) of a commit that did not go through. */
export interface FailedCommitOutcome {
  readonly status: Extract<CallStatus, 'failed'>;
  readonly result: null;
  readonly error: ErrorBody;
  readonly partial: PartialEffect;
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly artifacts: readonly ArtifactRef[];
}
