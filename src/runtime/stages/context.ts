import { join } from 'node:path';
import type { Envelope } from '../../protocol/index.js';
import type { ExecuteContext, ReceiptLookup } from '../../registry/index.js';
import type { Workspace } from '../../resources/index.js';
import type { ArtifactStore } from '../../artifacts/index.js';
import type { EffectStore, TaskStore } from '../../store/index.js';
import type { PolicyEngine } from '../../policy/index.js';
import type { Call } from '../call.js';
import { HmacTokenCodec } from '../tokens.js';
import { intentStage } from './intent.js';
import type { Validated } from './validate.js';
import type { Normalized } from './normalize.js';

export interface ContextServices {
  readonly workspace: Workspace;
  readonly artifacts: ArtifactStore;
  readonly receipts: ReceiptLookup;
  readonly store: Pick<TaskStore, 'currentRevision' | 'advanceRevision'> & Pick<EffectStore, 'markSent'>;
  readonly tokenKey: Buffer;
  /** Hidden from everything a tool runs. */
  readonly stateDir: string;
  /** Further paths hidden from everything a tool runs (the audit key). */
  readonly hiddenPaths: readonly string[];
  /** For a tool's mid-call recheck (no approval opened, no denial counted). */
  readonly policy: Pick<PolicyEngine, 'check'>;
  readonly environment: string | undefined;
}

/** What a tool sees of its call: its arguments and action, the call's signal, and the runtime's services. */
export function contextOf(s: ContextServices, call: Call, env: Envelope, valid: Validated, normalized: Normalized): ExecuteContext<never, never> {
  return {
    args: valid.args as never,
    prepared: normalized.prepared as never,
    action: normalized.action,
    signal: call.scope.signal,
    deadline: call.deadline,
    task_id: env.task_id,
    attempt_id: call.draft.attempt_id,
    logical_effect_id: env.logical_effect_id ?? null,
    idempotency_key: env.idempotency_key ?? null,
    workspace: s.workspace,
    artifacts: s.artifacts,
    tokens: new HmacTokenCodec(s.tokenKey, env.task_id),
    revision: {
      current: async () => `r${await s.store.currentRevision()}`,
      advance: async () => `r${await s.store.advanceRevision()}`,
    },
    receipts: s.receipts,
    hidden_paths: [s.stateDir, ...s.hiddenPaths],
    // Per workspace even when several share one state dir (docs/shell.md#package-caches).
    cache_dir: join(s.stateDir, 'cache', s.workspace.id),
    progress: (p) => call.progress({ ...p }),
    addSecret: (value) => {
      call.secrets.push(value);
    },
    markSent: intentStage(s.store, call),
    recheck: async (change) =>
      s.policy.check(
        { ...normalized.action, resources: change.resources, effect_class: change.effect_class ?? normalized.action.effect_class },
        {
          task_id: env.task_id,
          attempt_id: call.draft.attempt_id,
          now: Date.now(),
          revision: async () => `r${await s.store.currentRevision()}`,
          ...(s.environment !== undefined ? { environment: s.environment } : {}),
        },
      ),
  };
}
