import type { TaskId } from '../protocol/index.js';
import type { CallScope } from './call-scope.js';

/**
 * The scopes of the calls running now, by task, and the tasks cancelled: what
 * `Runtime.cancelTask` reaches. A call enters with its scope at admission and leaves when it
 * releases the scope.
 */
export class RunningCalls {
  readonly #scopes = new Map<TaskId, Set<CallScope>>();
  readonly #cancelled = new Set<TaskId>();

  /** Whether the task is cancelled: its new calls are refused until it is resumed. */
  cancelled(task: TaskId): boolean {
    return this.#cancelled.has(task);
  }

  enter(task: TaskId, scope: CallScope): void {
    let set = this.#scopes.get(task);
    if (!set) this.#scopes.set(task, (set = new Set()));
    set.add(scope);
  }

  leave(task: TaskId, scope: CallScope): void {
    const set = this.#scopes.get(task);
    set?.delete(scope);
    if (set?.size === 0) this.#scopes.delete(task);
  }

  /** Aborts every running call of the task and refuses its new calls until `resume`. */
  cancel(task: TaskId): void {
    this.#cancelled.add(task);
    for (const scope of this.#scopes.get(task) ?? []) scope.abort('task_cancel');
  }

  resume(task: TaskId): void {
    this.#cancelled.delete(task);
  }
}
