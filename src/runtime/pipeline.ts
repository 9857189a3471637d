import { ToolgateError, newAttemptId, type AttemptId, type Envelope, type Receipt, type TaskId } from '../protocol/index.js';
import type { AnyTool, ExecuteContext } from '../registry/index.js';
import { CallScope, type AbortKind } from './call-scope.js';
import type { CallOptions, RuntimeParts } from './runtime.js';
import { receiptSkeleton } from './runtime.js';
import { statusOf } from './status.js';
import { HmacTokenCodec } from './tokens.js';
import { parseStage, taskOf } from './stages/parse.js';
import { validateStage } from './stages/validate.js';
import { normalizeStage } from './stages/normalize.js';
import { authorizeStage, enforceDecision } from './stages/authorize.js';
import { estimateOf, usageOf } from './stages/budget.js';
import type { BudgetReservation } from '../policy/index.js';
import { claimRequestOf, claimStage, effectKeyOf, examineStage, type Reconciler } from './stages/claim.js';
import { executeStage, type Executed } from './stages/execute.js';
import { commitStage, type Draft } from './stages/commit.js';
import { intentStage } from './stages/intent.js';
import { reconcileRecord } from './reconcile.js';

function attemptOf(parts: RuntimeParts, env: Envelope): AttemptId {
  if (env.attempt_id !== undefined) return env.attempt_id;
  let a = parts.attempts.get(env.task_id);
  if (!a) {
    a = newAttemptId();
    parts.attempts.set(env.task_id, a);
    if (parts.attempts.size > 10_000) parts.attempts.delete(parts.attempts.keys().next().value as TaskId);
  }
  return a;
}

/**
 * The call pipeline of DESIGN §1, in order:
 * parse → resolve → validate → examine → normalize → authorize → admit → claim → intent →
 * execute → redact → commit. A stage that refuses throws a ToolgateError; the refusal becomes
 * the receipt. `examine` looks at a keyed call's effect record before normalize can refuse, so
 * a retry after a crash finds (and reconciles) the effect it already caused.
 */
export async function runPipeline(parts: RuntimeParts, input: unknown, opts: CallOptions): Promise<Receipt> {
  const arrived = Date.now();
  const draft: Draft = receiptSkeleton(taskOf(input), 'att_unparsed' as AttemptId, new Date(arrived).toISOString());
  const secrets: string[] = [...parts.secrets];
  let tool: AnyTool | null = null;
  let heldKey: string | null = null;
  let executed: Executed | null = null;
  let scope: CallScope | null = null;
  let release: (() => void) | null = null;
  let running: { task: TaskId; scope: CallScope } | null = null;
  let reservation: BudgetReservation | null = null;
  let executedMs = 0;
  try {
    // parse
    const env = parseStage(input);
    draft.task_id = env.task_id;
    draft.attempt_id = attemptOf(parts, env);
    draft.tool = env.tool;
    draft.tool_version = env.tool_version ?? null;
    draft.logical_effect_id = env.logical_effect_id ?? null;
    draft.idempotency_key = env.idempotency_key ?? null;
    if (parts.cancelledTasks.has(env.task_id)) throw new ToolgateError('cancelled', 'the task is cancelled', { by: 'task', phase: 'admission' });

    // resolve (in the task's pinned registry revision)
    const resolved = await parts.resolver.resolve(env, arrived);
    tool = resolved.tool;
    draft.tool_version = tool.version;
    draft.registry_revision = resolved.revision;

    // validate
    const { args, digest: argsDigest } = validateStage(tool, env.arguments);

    // the deadline is absolute and covers the queue; a retry keeps the first deadline
    const key = effectKeyOf(env);
    const recorded = key === null ? undefined : await parts.store.findEffect(env.task_id, key);
    const requested = env.deadline !== undefined ? Date.parse(env.deadline) : arrived + parts.defaultDeadlineMs;
    const deadline = recorded ? Math.min(recorded.deadline, requested) : requested;
    const reconcile: Reconciler = async (rec) => {
      const { entry, receipt } = await reconcileRecord(parts, rec, args);
      return { settled: entry.settled, receipt, reason: entry.reason };
    };

    // examine: a replay, a conflict or a crashed attempt is answered before normalize can refuse
    if (key !== null) {
      const examined = await examineStage(parts.store, claimRequestOf(env, key, tool, argsDigest, draft.attempt_id, deadline), reconcile);
      if (examined !== 'free' && examined.kind === 'replay') return examined.receipt;
    }

    // normalize
    const { action, prepared } = await normalizeStage(tool, args, argsDigest, parts.workspace, env.task_id, parts.receiptLookup, async (r) =>
      (await parts.policy.grantFor(env.task_id)).covers(r),
    );
    draft.normalized_action = action;

    // authorize
    const decision = await authorizeStage(parts.policy, action, {
      task_id: env.task_id,
      attempt_id: draft.attempt_id,
      now: Date.now(),
      revision: async () => `r${await parts.store.currentRevision()}`,
      ...(parts.environment !== undefined ? { environment: parts.environment } : {}),
    });
    draft.decision = decision;
    enforceDecision(decision);

    // admit
    const signals: { signal: AbortSignal; kind: AbortKind }[] = [];
    if (opts.signal) signals.push({ signal: opts.signal, kind: 'client_cancel' });
    scope = new CallScope(deadline, signals);
    running = { task: env.task_id, scope };
    let set = parts.running.get(env.task_id);
    if (!set) parts.running.set(env.task_id, (set = new Set()));
    set.add(scope);
    if (scope.signal.aborted && scope.kind === 'deadline') {
      throw new ToolgateError('deadline_expired', 'the deadline passed before the call was admitted', { deadline: new Date(deadline).toISOString(), phase: 'admission' });
    }
    // budgets: reserved now, settled with the actual usage once the call has run
    reservation = await parts.policy.admit(env.task_id, Date.now(), { estimate: estimateOf(action), expires_at: deadline });
    release = await parts.admission.acquire(scope.signal);
    draft.queued_ms = Date.now() - arrived;

    // claim + intent
    const claimed = await claimStage(parts.store, env, tool, action, draft.attempt_id, deadline, reconcile);
    if (claimed.kind === 'replay') return claimed.receipt;
    heldKey = claimed.kind === 'held' ? claimed.key : null;

    // execute
    const intent = intentStage(parts.store, env.task_id, heldKey, secrets);
    const ctx: ExecuteContext<never, never> = {
      args: args as never,
      prepared: prepared as never,
      action,
      signal: scope.signal,
      deadline,
      task_id: env.task_id,
      attempt_id: draft.attempt_id,
      logical_effect_id: env.logical_effect_id ?? null,
      workspace: parts.workspace,
      artifacts: parts.artifacts,
      tokens: new HmacTokenCodec(parts.tokenKey, env.task_id),
      revision: {
        current: async () => `r${await parts.store.currentRevision()}`,
        advance: async () => `r${await parts.store.advanceRevision()}`,
      },
      receipts: parts.receiptLookup,
      hidden_paths: [parts.stateDir],
      progress: (p) => opts.onProgress?.({ ...p }),
      addSecret: (value) => {
        secrets.push(value);
      },
      markSent: intent.markSent,
    };
    const startedAt = performance.now();
    executed = await executeStage(tool, ctx, scope, () => intent.sent, parts.abortGraceMs);
    executedMs = performance.now() - startedAt;
    draft.status = executed.status;
    draft.result = executed.result;
    draft.error = executed.error;
    draft.truncated = executed.truncated;
    draft.partial = executed.partial;
    draft.evidence = executed.evidence;
    draft.artifacts = [...(executed.artifacts ?? [])];
  } catch (e) {
    // A defect in a stage is still answered with a receipt; it never escapes call().
    const err = ToolgateError.isInstance(e) ? e : new ToolgateError('internal_error', e instanceof Error ? e.message : String(e), { errno: (e as NodeJS.ErrnoException | null)?.code ?? null });
    draft.status = statusOf(err.code);
    draft.error = err.toBody();
  } finally {
    // A grant without a budget reserved nothing (id null): there is no usage to measure.
    if (reservation && reservation.id !== null) {
      if (executed && draft.normalized_action) await parts.policy.settle(reservation, usageOf(draft.normalized_action, executed, executedMs));
      else await parts.policy.release(reservation);
    }
    release?.();
    scope?.dispose();
    if (running) {
      const set = parts.running.get(running.task);
      set?.delete(running.scope);
      if (set?.size === 0) parts.running.delete(running.task);
    }
  }
  try {
    return await commitStage(parts, draft, tool, secrets, heldKey, executed);
  } finally {
    // Committed or not, this call no longer runs its effect: an uncommitted record (the store
    // failed) stays claimed or sent for the next retry or `toolgate reconcile` to settle.
    if (heldKey !== null) await parts.store.letGo(draft.task_id, heldKey);
  }
}
