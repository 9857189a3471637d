// What the tasks layer keeps in a subtask's row (`record`, JSON): written by task.spawn, filled
// in by task.complete and task.result, read by the CLI and the link check.
import type { ArtifactRef, TaskId } from '../protocol/index.js';
import type { BudgetLimitsSpec, Usage } from '../policy/index.js';
import type { SubtaskRow } from '../store/index.js';

export const TASK_STATES = ['running', 'completed', 'cancelled', 'expired', 'failed'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TERMINAL: readonly TaskState[] = ['completed', 'cancelled', 'expired', 'failed'];

export interface TaskResult {
  /** The schema-validated conclusion, bounded by `tasks.max_conclusion_bytes`. */
  readonly conclusion: unknown;
  /** The child's tree as a commit on the input revision (refs/toolgate/tasks/<id>). */
  readonly commit: string;
  readonly changes: readonly { readonly status: string; readonly path: string }[];
  /** The patch against the input revision, as an artifact; null when nothing changed. */
  readonly patch: ArtifactRef | null;
  /** The child's receipts the result is bound to: how many, and the newest before task.complete. */
  readonly evidence: { readonly receipts: number; readonly head_receipt_id: string | null; readonly head_digest: string | null };
  readonly completed_at: string;
}

export type MergeOutcome =
  | { readonly status: 'merged'; readonly written: readonly string[]; readonly deleted: readonly string[]; readonly revision: string | null }
  | { readonly status: 'conflict'; readonly conflicts: readonly { readonly path: string; readonly reason: string }[] };

export interface SubtaskRecord {
  readonly objective: string;
  readonly output_schema: Readonly<Record<string, unknown>>;
  readonly owned: readonly string[];
  readonly input_revision: string;
  /** The common git dir of the parent's repository. */
  readonly git_dir: string;
  readonly worktree: string;
  readonly worktree_removed: boolean;
  /** Epoch ms. */
  readonly deadline: number;
  readonly budget: BudgetLimitsSpec;
  /** The reservation in the parent's budget that the child's usage is charged through. */
  readonly reservation_id: string;
  readonly token_file: string;
  /** What the parent was charged when the child ended. */
  readonly charged: Usage | null;
  readonly result: TaskResult | null;
  readonly merge: MergeOutcome | null;
  readonly ended_reason: string | null;
  /** The logical effect of the task.spawn call that made it (when the call had an idempotency key): a retry after a crash finds it. */
  readonly spawned_by?: string;
}

export interface Subtask {
  readonly task_id: TaskId;
  readonly parent_id: TaskId;
  readonly root_id: TaskId;
  readonly depth: number;
  readonly state: TaskState;
  readonly record: SubtaskRecord;
  readonly created_at: string;
  readonly updated_at: string;
}

export function subtaskOf(row: SubtaskRow): Subtask {
  return { ...row, state: row.state as TaskState, record: row.record as unknown as SubtaskRecord };
}

export function isTerminal(state: TaskState): boolean {
  return TERMINAL.includes(state);
}
