import { LRUCache } from 'lru-cache';
import type { Envelope, TaskId } from '../../protocol/index.js';
import type { AnyTool, Manifest, Registry, Resolved } from '../../registry/index.js';
import type { TaskStore } from '../../store/index.js';
import type { Call } from '../call.js';

/**
 * Pins the task to the registry revision of its first call (durably), then resolves the tool
 * in that pinned revision. The pin is cached: it never changes once written. The cache keeps the
 * most recently used tasks (an active task is never pushed out by others; a task read back after
 * eviction finds the same durable pin).
 */
export class Resolver {
  readonly #registry: Registry;
  readonly #tasks: TaskStore;
  readonly #pins = new LRUCache<TaskId, Manifest>({ max: 10_000 });

  constructor(registry: Registry, tasks: TaskStore) {
    this.#registry = registry;
    this.#tasks = tasks;
  }

  async pinned(task: TaskId): Promise<Manifest> {
    let m = this.#pins.get(task);
    if (!m) {
      // The store keeps the first pin: an already-pinned task gets its own manifest back.
      m = await this.#tasks.pinTask(task, this.#registry.manifestFor(task, Date.now()));
      this.#pins.set(task, m);
    }
    return m;
  }

  async resolve(env: Envelope, now: number): Promise<Resolved & { revision: Manifest['revision'] }> {
    const manifest = await this.pinned(env.task_id);
    return { ...this.#registry.resolve(env.tool, env.tool_version, manifest, now), revision: manifest.revision };
  }
}

/** The tool, in the task's pinned registry revision; the receipt records which. */
export async function resolveStage(resolver: Resolver, call: Call, env: Envelope): Promise<AnyTool> {
  const resolved = await resolver.resolve(env, call.arrived);
  call.tool = resolved.tool;
  call.draft.tool_version = resolved.tool.version;
  call.draft.registry_revision = resolved.revision;
  return resolved.tool;
}
