import { LRUCache } from 'lru-cache';
import type { Digest, Envelope, HostToolRecord, RuntimeChange, TaskId } from '../../protocol/index.js';
import type { AnyTool, Manifest, Registry, Resolved } from '../../registry/index.js';
import type { TaskStore } from '../../store/index.js';
import type { Call } from '../call.js';

/** The runtime a call runs under (docs/release.md): its digest, and the host tools it uses (probed once). */
export interface RuntimeIdentity {
  readonly digest: Digest;
  readonly hostTools: () => Promise<readonly HostToolRecord[]>;
}

/** What the first call of a task in this runtime learned when it noted the runtime; later calls get null. */
interface RuntimeNews {
  readonly first: boolean;
  readonly changed: RuntimeChange | null;
}

interface Pin {
  readonly manifest: Manifest;
  news: RuntimeNews | null;
}

/**
 * Pins the task to the registry revision of its first call (durably), then resolves the tool
 * in that pinned revision. The pin is cached: it never changes once written. The cache keeps the
 * most recently used tasks (an active task is never pushed out by others; a task read back after
 * eviction finds the same durable pin). On the same cache miss the task's runtime is noted: the
 * store says whether the task last ran under another runtime digest (a rolled runtime).
 */
export class Resolver {
  readonly #registry: Registry;
  readonly #tasks: TaskStore;
  readonly #runtime: RuntimeIdentity;
  readonly #pins = new LRUCache<TaskId, Pin>({ max: 10_000 });

  constructor(registry: Registry, tasks: TaskStore, runtime: RuntimeIdentity) {
    this.#registry = registry;
    this.#tasks = tasks;
    this.#runtime = runtime;
  }

  get runtimeDigest(): Digest {
    return this.#runtime.digest;
  }

  async #pin(task: TaskId): Promise<Pin> {
    let p = this.#pins.get(task);
    if (!p) {
      // The store keeps the first pin: an already-pinned task gets its own manifest back.
      const [manifest, note] = await Promise.all([this.#tasks.pinTask(task, this.#registry.manifestFor(task, Date.now())), this.#tasks.noteRuntime(task, this.#runtime.digest)]);
      const changed = note.previous !== null && note.previous !== this.#runtime.digest ? { from: note.previous, to: this.#runtime.digest } : null;
      p = { manifest, news: note.previous === null || changed ? { first: note.previous === null, changed } : null };
      this.#pins.set(task, p);
    }
    return p;
  }

  async pinned(task: TaskId): Promise<Manifest> {
    return (await this.#pin(task)).manifest;
  }

  async resolve(env: Envelope, now: number): Promise<Resolved & { revision: Manifest['revision']; news: RuntimeNews | null }> {
    const pin = await this.#pin(env.task_id);
    const resolved = this.#registry.resolve(env.tool, env.tool_version, pin.manifest, now);
    // The news goes to one receipt: this call's, taken before anything else can await.
    const news = pin.news;
    pin.news = null;
    return { ...resolved, revision: pin.manifest.revision, news };
  }

  /** The host tools a first receipt records. */
  hostTools(): Promise<readonly HostToolRecord[]> {
    return this.#runtime.hostTools();
  }
}

/** The tool, in the task's pinned registry revision; the receipt records which. */
export async function resolveStage(resolver: Resolver, call: Call, env: Envelope): Promise<AnyTool> {
  const resolved = await resolver.resolve(env, call.arrived);
  call.tool = resolved.tool;
  call.draft.tool_version = resolved.tool.version;
  call.draft.registry_revision = resolved.revision;
  if (resolved.news) {
    if (resolved.news.changed) call.draft.runtime_changed = resolved.news.changed;
    call.draft.host_tools = await resolver.hostTools();
  }
  return resolved.tool;
}
