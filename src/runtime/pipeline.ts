import { newAttemptId, type AttemptId, type Digest, type Envelope, type Receipt, type TaskId } from '../protocol/index.js';
import type { Resolver } from './stages/resolve.js';
import { Call, type CallOptions, type CallServices } from './call.js';
import type { ReconcileParts, RuntimeParts } from './parts.js';
import { reconcileRecord } from './reconcile.js';
import { parseStage, type ParseServices } from './stages/parse.js';
import { resolveStage } from './stages/resolve.js';
import { validateStage } from './stages/validate.js';
import { claimStage, examineStage, type ClaimServices } from './stages/claim.js';
import { normalizeStage, type NormalizeServices } from './stages/normalize.js';
import { authorizeStage, type AuthorizeServices } from './stages/authorize.js';
import { admitStage, type AdmitServices } from './stages/admit.js';
import { executeStage, type ExecuteServices } from './stages/execute.js';
import { commitStage, type CommitServices } from './stages/commit.js';
import type { LRUCache } from 'lru-cache';
import type { CallTelemetry } from './telemetry.js';
import { failpoint } from '../protocol/index.js';

function attemptOf(parts: { readonly attempts: LRUCache<TaskId, AttemptId> }, env: Envelope): AttemptId {
  if (env.attempt_id !== undefined) return env.attempt_id;
  let a = parts.attempts.get(env.task_id);
  if (!a) {
    a = newAttemptId();
    parts.attempts.set(env.task_id, a);
  }
  return a;
}

/** Each stage's services, taken from the runtime's parts once: a stage sees only what it uses. */
export interface Pipeline {
  readonly call: CallServices;
  readonly secrets: readonly string[];
  readonly parse: ParseServices;
  readonly resolver: Resolver;
  readonly claim: ClaimServices;
  readonly normalize: NormalizeServices;
  readonly authorize: AuthorizeServices;
  readonly admit: AdmitServices;
  readonly execute: ExecuteServices;
  readonly commit: CommitServices;
  readonly telemetry: CallTelemetry;
  /** Named by every receipt (docs/release.md). */
  readonly runtimeDigest: Digest;
  /** Calls between the start of runPipeline and its end. */
  readonly inPipeline: { calls: number };
}

export function pipelineOf({ services, config, state }: RuntimeParts, reconcileParts: ReconcileParts): Pipeline {
  const { workspace, store, artifacts, policy, resolver, receiptLookup: receipts, admission, telemetry } = services;
  const { stateDir, hiddenPaths, tokenKey, environment, defaultDeadlineMs, abortGraceMs, inlineResultBytes, retention, secrets } = config;
  const inPipeline = { calls: 0 };
  return {
    inPipeline,
    call: { policy, store, running: state.running, effects: state.effects },
    secrets,
    parse: { attemptOf: (env) => attemptOf(state, env), running: state.running },
    resolver,
    claim: {
      store,
      defaultDeadlineMs,
      effects: state.effects,
      running: state.running,
      // A call ends within the abort grace of its deadline, then commits.
      settleMs: abortGraceMs + 2_000,
      reconcile: async (record, args) => {
        const { entry, receipt } = await reconcileRecord(reconcileParts, record, args);
        telemetry.reconciled(entry.tool, entry.settled, 'retry');
        return { settled: entry.settled, receipt, reason: entry.reason };
      },
    },
    normalize: { workspace, receipts, policy },
    authorize: { policy, store, environment },
    admit: { policy, admission, effects: state.effects },
    execute: { workspace, artifacts, receipts, store, tokenKey, stateDir, hiddenPaths, abortGraceMs, policy, environment },
    commit: { store, artifacts, inlineResultBytes, retention, stateDir, alone: () => inPipeline.calls === 1 },
    telemetry,
    runtimeDigest: config.runtimeDigest,
  };
}

/**
 * The call pipeline of DESIGN §1, in order:
 * parse → resolve → validate → examine → normalize → authorize → admit → claim → execute
 * (intent: the tool's markSent) → redact → commit. A stage that refuses throws a
 * ToolgateError; the refusal becomes the receipt. `examine` looks at a keyed call's effect
 * record before normalize can refuse, so a retry after a crash finds (and reconciles) the
 * effect it already caused. The call owns what the stages acquire and gives it back.
 */
export async function runPipeline(p: Pipeline, input: unknown, opts: CallOptions): Promise<Receipt> {
  const call = new Call(p.call, input, opts, p.secrets);
  call.draft.runtime_digest = p.runtimeDigest;
  const parent = p.telemetry.parent();
  let receipt: Receipt | null = null;
  let thrown: unknown = null;
  p.inPipeline.calls++;
  try {
    receipt = (await runStages(p, call, input)) ?? (await commitStage(p.commit, call));
    return receipt;
  } catch (e) {
    thrown = e;
    throw e;
  } finally {
    p.inPipeline.calls--;
    call.clock.leave();
    try {
      await call.dispose();
    } finally {
      // After the effect record is let go: what the span says is what the call's caller gets.
      p.telemetry.ended(call, parent, receipt, thrown);
    }
  }
}

/** parse … execute. Returns the receipt that answers the call when it is a replay; null to commit the call's own. */
async function runStages(p: Pipeline, call: Call, input: unknown): Promise<Receipt | null> {
  const { clock } = call;
  try {
    clock.enter('parse');
    const env = parseStage(p.parse, call, input);
    clock.enter('resolve');
    const tool = await resolveStage(p.resolver, call, env);
    clock.enter('validate');
    const valid = validateStage(tool, env.arguments);
    clock.enter('examine');
    const replay = await examineStage(p.claim, call, env, tool, valid);
    if (replay) return replay;
    clock.enter('normalize');
    const normalized = await normalizeStage(p.normalize, call, tool, valid);
    clock.enter('authorize');
    await authorizeStage(p.authorize, call, normalized.action);
    clock.enter('admit');
    await admitStage(p.admit, call, normalized.action);
    clock.enter('claim');
    const replayed = await claimStage(p.claim, call, env, tool, normalized.action, valid.args);
    if (replayed) return replayed;
    failpoint('after_claim');
    clock.enter('execute');
    await executeStage(p.execute, call, env, tool, valid, normalized);
  } catch (e) {
    call.fail(e);
  } finally {
    clock.leave();
    // The slot, the budget and the scope are given back before the commit, which may wait for
    // a group's fsync: the next call need not wait for this one's receipt to be durable.
    await call.endRun();
  }
  return null;
}
