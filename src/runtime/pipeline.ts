import { ToolgateError, newAttemptId, type AttemptId, type Envelope, type Receipt, type ReceiptBody, type TaskId } from '../protocol/index.js';
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
import { claimStage, effectKeyOf } from './stages/claim.js';
import { executeStage, type Executed } from './stages/execute.js';
import { redactStage } from './stages/redact.js';

type Draft = { -readonly [K in keyof Omit<ReceiptBody, 'prev_receipt_digest'>]: Omit<ReceiptBody, 'prev_receipt_digest'>[K] };

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
 * parse → resolve → validate → normalize → authorize → admit → claim → intent → execute →
 * redact → commit. A stage that refuses throws a ToolgateError; the refusal becomes the receipt.
 */
export async function runPipeline(parts: RuntimeParts, input: unknown, opts: CallOptions): Promise<Receipt> {
  parts.inflight.count++;
  try {
    return await runStages(parts, input, opts);
  } finally {
    parts.inflight.count--;
  }
}

async function runStages(parts: RuntimeParts, input: unknown, opts: CallOptions): Promise<Receipt> {
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
    const resolved = parts.resolver.resolve(env, arrived);
    tool = resolved.tool;
    draft.tool_version = tool.version;
    draft.registry_revision = resolved.revision;

    // validate
    const { args, digest: argsDigest } = validateStage(tool, env.arguments);

    // normalize
    const { action, prepared } = await normalizeStage(tool, args, argsDigest, parts.workspace, env.task_id, parts.receiptLookup, (r) =>
      parts.policy.grantFor(env.task_id).covers(r),
    );
    draft.normalized_action = action;

    // authorize
    const decision = authorizeStage(parts.policy, action, {
      task_id: env.task_id,
      attempt_id: draft.attempt_id,
      now: Date.now(),
      revision: () => `r${parts.store.currentRevision()}`,
      ...(parts.environment !== undefined ? { environment: parts.environment } : {}),
    });
    draft.decision = decision;
    enforceDecision(decision);

    // admit: the deadline is absolute and covers the queue; a retry keeps the first deadline
    const key = effectKeyOf(env);
    const recorded = key === null ? undefined : parts.store.findEffect(env.task_id, key);
    const requested = env.deadline !== undefined ? Date.parse(env.deadline) : arrived + parts.defaultDeadlineMs;
    const deadline = recorded ? Math.min(recorded.deadline, requested) : requested;
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
    reservation = parts.policy.admit(env.task_id, Date.now(), { estimate: estimateOf(action), expires_at: deadline });
    release = await parts.admission.acquire(scope.signal);
    draft.queued_ms = Date.now() - arrived;

    // claim + intent
    const claimed = claimStage(parts.store, env, tool, action, args, draft.attempt_id, deadline);
    if (claimed.kind === 'replay') return claimed.receipt;
    heldKey = claimed.kind === 'held' ? claimed.key : null;

    // execute
    let sent = false;
    const held = heldKey;
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
        current: () => `r${parts.store.currentRevision()}`,
        advance: () => `r${parts.store.advanceRevision()}`,
      },
      receipts: parts.receiptLookup,
      hidden_paths: [parts.stateDir],
      progress: (p) => opts.onProgress?.({ ...p }),
      addSecret: (value) => {
        secrets.push(value);
      },
      markSent: () => {
        if (sent) return;
        if (held !== null) parts.store.markSent(env.task_id, held);
        sent = true;
      },
    };
    const startedAt = performance.now();
    executed = await executeStage(tool, ctx, scope, () => sent, parts.abortGraceMs);
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
      if (executed && draft.normalized_action) parts.policy.settle(reservation, usageOf(draft.normalized_action, executed, executedMs));
      else parts.policy.release(reservation);
    }
    release?.();
    scope?.dispose();
    if (running) {
      const set = parts.running.get(running.task);
      set?.delete(running.scope);
      if (set?.size === 0) parts.running.delete(running.task);
    }
  }
  return commitStage(parts, draft, tool, secrets, heldKey, executed);
}

/** redact → (spill large results to artifacts) → commit. The receipt is durable before it is returned. */
function commitStage(parts: RuntimeParts, draft: Draft, tool: AnyTool | null, secrets: readonly string[], heldKey: string | null, executed: Executed | null): Promise<Receipt> {
  const red = redactStage(tool, draft, secrets, executed?.redaction_windows ?? []);
  Object.assign(draft, red.body);
  draft.redactions = red.notes;
  if (draft.result !== null && mayExceed(draft.result, parts.inlineResultBytes)) {
    const text = JSON.stringify(draft.result);
    if (Buffer.byteLength(text) > parts.inlineResultBytes) {
      const ref = parts.artifacts.put(text, 'application/json', 'result');
      draft.artifacts = [...draft.artifacts, ref];
      draft.result = { artifact: ref.digest, bytes: ref.bytes, inline: false };
    }
  }
  draft.finished_at = new Date().toISOString();
  const effect = heldKey === null ? undefined : { key: heldKey, state: executed?.effect ?? 'released' };
  const req = { body: draft, ...(effect ? { effect } : {}) };
  // Alone, a call commits at once; with other calls in the pipeline, the commits of one turn of
  // the event loop share a transaction.
  return parts.inflight.count > 1 ? parts.store.commitBatched(req) : Promise.resolve(parts.store.commit(req));
}

/** Cheap bound before serializing: JSON escaping at most sextuples a string (\u00XX). */
function mayExceed(value: unknown, limit: number): boolean {
  let budget = limit / 6;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return (budget -= v.length + 2) < 0;
    if (Array.isArray(v)) return v.some(walk);
    if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => (budget -= k.length + 3) < 0 || walk(x));
    return (budget -= 24) < 0;
  };
  return walk(value);
}

