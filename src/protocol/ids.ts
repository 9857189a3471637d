// Branded identifiers: a TaskId cannot be passed where a ReceiptId is expected.
import { randomUUID } from 'node:crypto';

export type TaskId = string & { readonly __brand: 'TaskId' };
export type AttemptId = string & { readonly __brand: 'AttemptId' };
export type ReceiptId = string & { readonly __brand: 'ReceiptId' };
export type LogicalEffectId = string & { readonly __brand: 'LogicalEffectId' };

export function newTaskId(): TaskId {
  return `task_${randomUUID()}` as TaskId;
}

export function newAttemptId(): AttemptId {
  return `att_${randomUUID()}` as AttemptId;
}

/** Caller-supplied identifiers: printable, bounded, no path or control characters. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/;
