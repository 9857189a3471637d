import { ID_PATTERN, parseEnvelope, type Envelope, type TaskId } from '../../protocol/index.js';

/** Task id to file a refused envelope under, when the envelope has no usable one. */
export const UNPARSED_TASK = '_unparsed' as TaskId;

export function parseStage(input: unknown): Envelope {
  return parseEnvelope(input);
}

/** Best-effort identity of an envelope that failed to parse, for its receipt. */
export function taskOf(input: unknown): TaskId {
  if (typeof input === 'object' && input !== null) {
    const t = (input as Record<string, unknown>)['task_id'];
    if (typeof t === 'string' && ID_PATTERN.test(t)) return t as TaskId;
  }
  return UNPARSED_TASK;
}
