import type { Envelope, TaskId } from '../../protocol/index.js';
import type { Manifest, Registry, Resolved } from '../../registry/index.js';
import type { TaskStore } from '../../store/index.js';

/**
 * Pins the task to the registry revision of its first call (durably), then resolves the tool
 * in that pinned revision. The pin is cached: it never changes once written.
 */
export class Resolver {
  readonly #registry: Registry;
  readonly #tasks: TaskStore;
  readonly #pins = new Map<TaskId, Manifest>();

  constructor(registry: Registry, tasks: TaskStore) {
    this.#registry = registry;
    this.#tasks = tasks;
  }

  async pinned(task: TaskId): Promise<Manifest> {
    let m = this.#pins.get(task);
    if (!m) {
      m = await this.#tasks.pinTask(task, this.#registry.manifest);
      this.#pins.set(task, m);
      if (this.#pins.size > 10_000) this.#pins.delete(this.#pins.keys().next().value as TaskId);
    }
    return m;
  }

  async resolve(env: Envelope, now: number): Promise<Resolved & { revision: Manifest['revision'] }> {
    const manifest = await this.pinned(env.task_id);
    return { ...this.#registry.resolve(env.tool, env.tool_version, manifest, now), revision: manifest.revision };
  }
}
