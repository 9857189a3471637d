import type { AttemptId, Digest, TaskId } from '../protocol/index.js';
import type { ReceiptRetention } from './stages/bind.js';
import type { Registry, ReceiptLookup } from '../registry/index.js';
import type { Workspace } from '../resources/index.js';
import type { PolicyEngine } from '../policy/index.js';
import type { Store } from '../store/index.js';
import type { ArtifactStore } from '../artifacts/index.js';
import type { Admission } from './admission.js';
import type { RunningCalls } from './running-calls.js';
import type { RunningEffects } from './attach.js';
import type { Resolver } from './stages/resolve.js';
import type { LRUCache } from 'lru-cache';
import type { CallTelemetry } from './telemetry.js';

/** What one runtime instance is made of: each stage is handed the few it uses (pipeline.ts). */
export interface RuntimeServices {
  readonly workspace: Workspace;
  readonly registry: Registry;
  readonly store: Store;
  readonly artifacts: ArtifactStore;
  readonly policy: PolicyEngine;
  readonly resolver: Resolver;
  readonly receiptLookup: ReceiptLookup;
  readonly admission: Admission;
  /** Spans and observers (docs/operating.md). */
  readonly telemetry: CallTelemetry;
}

/** Fixed at start: where the state lives, limits, and what must never be recorded. */
export interface RuntimeConfig {
  readonly stateDir: string;
  /** Paths hidden from tools besides the state dir: the audit key (docs/audit.md). */
  readonly hiddenPaths: readonly string[];
  /** Signs continuation tokens (a secret: the store's shared key, or the state dir's own). */
  readonly tokenKey: Buffer;
  readonly environment: string | undefined;
  readonly defaultDeadlineMs: number;
  readonly abortGraceMs: number;
  readonly inlineResultBytes: number;
  readonly retention: ReceiptRetention;
  readonly secrets: readonly string[];
  /** The runtime's digest (docs/release.md): named by every receipt it makes. */
  readonly runtimeDigest: Digest;
}

/** What changes while the runtime runs, per instance (no module-level state). */
export interface RuntimeState {
  /** Attempt ids the runtime gave tasks that named none; least recently used first out, so an active task keeps its id. */
  readonly attempts: LRUCache<TaskId, AttemptId>;
  readonly running: RunningCalls;
  /** Keyed effects running now, which a re-issued call with the same key attaches to. */
  readonly effects: RunningEffects;
}

export interface RuntimeParts {
  readonly services: RuntimeServices;
  readonly config: RuntimeConfig;
  readonly state: RuntimeState;
}

/** What reconcile works with: the services it settles effects through, and the secrets to redact. */
export type ReconcileParts = Pick<RuntimeServices, 'workspace' | 'registry' | 'store' | 'artifacts'> & Pick<RuntimeConfig, 'secrets' | 'runtimeDigest'>;
