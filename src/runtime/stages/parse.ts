import { ID_PATTERN, ToolgateError, parseEnvelope, type AttemptId, type Envelope, type TaskId } from '../../protocol/index.js';
import type { Call } from '../call.js';
import type { RunningCalls } from '../running-calls.js';

/** Task id to file a refused envelope under, when the envelope has no usable one. */
export const UNPARSED_TASK = '_unparsed' as TaskId;

export interface ParseServices {
  /** The envelope's attempt id, or the one this runtime gave its task. */
  readonly attemptOf: (env: Envelope) => AttemptId;
  readonly running: Pick<RunningCalls, 'cancelled'>;
}

/** The envelope, checked; the receipt learns who calls what. A cancelled task's calls stop here. */
export function parseStage(s: ParseServices, call: Call, input: unknown): Envelope {
  const env = parseEnvelope(input);
  const d = call.draft;
  d.task_id = env.task_id;
  d.attempt_id = s.attemptOf(env);
  d.tool = env.tool;
  d.tool_version = env.tool_version ?? null;
  d.logical_effect_id = env.logical_effect_id ?? null;
  d.idempotency_key = env.idempotency_key ?? null;
  if (env.origin !== undefined) d.origin = env.origin;
  if (s.running.cancelled(env.task_id)) throw new ToolgateError('cancelled', 'the task is cancelled', { by: 'task', phase: 'admission' });
  return env;
}

/** Best-effort identity of an envelope that failed to parse, for its receipt. */
export function taskOf(input: unknown): TaskId {
  if (typeof input === 'object' && input !== null) {
    const t = (input as Record<string, unknown>)['task_id'];
    if (typeof t === 'string' && ID_PATTERN.test(t)) return t as TaskId;
  }
  return UNPARSED_TASK;
}
