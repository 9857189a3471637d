// The `tasks` section of toolgate.config.json: the bounds of delegation (docs/tasks.md).
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { TaskBounds } from './tree.js';

export const tasksConfigShape = z
  .strictObject({
    max_depth: z.number().int().min(1).max(16).optional().describe('Levels of subtasks below an agent session (default 3)'),
    max_fanout: z.number().int().min(1).max(256).optional().describe('Subtasks one task may spawn (default 8)'),
    max_descendants: z.number().int().min(1).max(4096).optional().describe('Subtasks in one tree (default 32)'),
    max_deadline_ms: z.number().int().min(1000).optional().describe('The longest deadline a subtask may be given (default one hour)'),
    max_conclusion_bytes: z.number().int().min(64).max(1_048_576).optional().describe('Size of a conclusion in canonical JSON (default 65536)'),
    worktree_dir: z.string().min(1).optional().describe("Where children's git worktrees live (default: <state dir>.worktrees beside the state dir)"),
  })
  .describe('Subtasks: bounds on delegation (docs/tasks.md)');

export type TasksConfig = z.infer<typeof tasksConfigShape>;

export interface TaskSettings {
  readonly bounds: TaskBounds;
  readonly maxDeadlineMs: number;
  readonly maxConclusionBytes: number;
  readonly worktreeDir: string;
  /** How often a wait or a child's watch looks at the store. */
  readonly pollMs: number;
}

/** The settings in force; worktrees sit beside the state dir, never inside it (shell.exec hides the state dir). */
export function taskSettings(config: TasksConfig | undefined, stateDir: string): TaskSettings {
  return {
    bounds: { maxDepth: config?.max_depth ?? 3, maxFanout: config?.max_fanout ?? 8, maxDescendants: config?.max_descendants ?? 32 },
    maxDeadlineMs: config?.max_deadline_ms ?? 3_600_000,
    maxConclusionBytes: config?.max_conclusion_bytes ?? 65_536,
    worktreeDir: config?.worktree_dir ?? join(dirname(stateDir), `${basename(stateDir)}.worktrees`),
    pollMs: 100,
  };
}
