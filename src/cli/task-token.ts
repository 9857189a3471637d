// `toolgate serve --task-token-file FILE`: the connection runs as the subtask the token names
// (docs/tasks.md). The token is looked up (by digest) in the store of the state dir, and the
// runtime is opened on the subtask's worktree: its tools see that tree, never the parent's.
import { readFileSync } from 'node:fs';
import type { TaskId } from '../protocol/index.js';
import { sqliteStore } from '../store/index.js';
import { tokenDigest, watchSubtask, type SubtaskWatch } from '../tasks/index.js';
import type { Runtime } from '../runtime/index.js';
import type { LoadedConfig } from './config.js';
import { configPath } from './config.js';
import { runtimeOptions, type RuntimeFlags } from './open-runtime.js';
import { tokenFileFault } from './startup-faults.js';
import { UsageError } from './usage.js';

export interface ChildTask {
  readonly task: TaskId;
  readonly worktree: string;
  readonly token: string;
}

export async function childTaskOf(file: string, values: RuntimeFlags, loaded: LoadedConfig): Promise<ChildTask> {
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw tokenFileFault(file, e);
  }
  const stateDir = values['state-dir'] ?? configPath(loaded, loaded.config.state_dir);
  if (stateDir === undefined) throw new UsageError('--task-token-file needs the state dir of the parent (--state-dir)');
  const options = runtimeOptions(values, loaded);
  const store = await (options.store ?? sqliteStore())({ stateDir });
  try {
    const row = await store.subtasks?.subtaskByToken(tokenDigest(token));
    if (row === undefined) throw new UsageError(`--task-token-file: the token in ${file} names no subtask of this state dir`);
    if (row.state !== 'running') throw new UsageError(`--task-token-file: subtask ${row.task_id} is ${row.state}`);
    const worktree = row.record['worktree'];
    if (typeof worktree !== 'string') throw new UsageError(`--task-token-file: subtask ${row.task_id} has no worktree`);
    return { task: row.task_id, worktree, token };
  } finally {
    await store.close();
  }
}

/**
 * Ends the connection when the parent cancels the subtask (or its deadline passes): its running
 * calls are cancelled first, each ending with its receipt and its processes killed.
 */
export function endWithSubtask(rt: Runtime, child: ChildTask | null, close: () => Promise<void>): SubtaskWatch {
  if (child === null || rt.tasks === null) return { ended: new Promise(() => {}), stop: () => {} };
  return watchSubtask(rt.tasks, child.task, () => {
    rt.cancelTask(child.task);
    void close();
  });
}
