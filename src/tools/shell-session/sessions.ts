// The shell sessions of one runtime, by task and name. A task holds at most MAX_SESSIONS; a
// session unused for the idle time ends by itself; every session of a task ends with the task
// (endTask), and all of them with the runtime (endAll). Nothing here outlives its runtime: the
// idle timers are unref'd and cleared when their session ends.
import { ToolgateError } from '../../protocol/index.js';
import type { StatusSnapshot } from '../../resources/index.js';
import type { SandboxSession, SessionCommand, SessionEnd, SessionEndReason } from '../../sandbox/index.js';

export const MAX_SESSIONS_PER_TASK = 4;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** A command started by `run` whose end has not been returned yet. */
export interface Pending {
  readonly cmd: SessionCommand;
  /** git status before it, when the workspace is writable and a git work tree. */
  readonly before: StatusSnapshot | null;
}

export interface SessionEntry {
  readonly task: string;
  readonly name: string;
  readonly session: SandboxSession;
  pending: Pending | null;
  /** Calls of this session in progress: it is not idle while any runs. */
  busy: number;
  idle: NodeJS.Timeout | undefined;
}

export class SessionTable {
  readonly #tasks = new Map<string, Map<string, SessionEntry>>();
  /** Sessions being opened, counted against the cap. */
  readonly #opening = new Map<string, number>();
  readonly #idleMs: number;
  #closed = false;

  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  get(task: string, name: string): SessionEntry | undefined {
    return this.#tasks.get(task)?.get(name);
  }

  /** Every open session (tests count their processes). */
  all(): SessionEntry[] {
    return [...this.#tasks.values()].flatMap((m) => [...m.values()]);
  }

  /** Throws `limit_exceeded` when the task cannot open another session (checked before anything is sent). */
  checkRoom(task: string): void {
    if (this.#closed) throw new ToolgateError('execution_failed', 'the runtime is closing: no new shell session', { reason: 'runtime_closed', exit_code: null });
    const count = (this.#tasks.get(task)?.size ?? 0) + (this.#opening.get(task) ?? 0);
    if (count >= MAX_SESSIONS_PER_TASK) {
      throw new ToolgateError('limit_exceeded', `the task holds ${MAX_SESSIONS_PER_TASK} shell sessions already; close one (action "close") or reuse one by its name`, { limit: 'sessions', max: MAX_SESSIONS_PER_TASK });
    }
  }

  /** Opens a session under `name`; `limit_exceeded` past the cap of the task. */
  async open(task: string, name: string, start: () => Promise<SandboxSession>): Promise<SessionEntry> {
    this.checkRoom(task);
    this.#opening.set(task, (this.#opening.get(task) ?? 0) + 1);
    let session: SandboxSession;
    try {
      session = await start();
    } finally {
      const left = (this.#opening.get(task) ?? 1) - 1;
      if (left > 0) this.#opening.set(task, left);
      else this.#opening.delete(task);
    }
    const entry: SessionEntry = { task, name, session, pending: null, busy: 0, idle: undefined };
    if (this.#closed) {
      await session.end('closed');
      throw new ToolgateError('execution_failed', 'the runtime is closing: no new shell session', { reason: 'runtime_closed', exit_code: null });
    }
    let byName = this.#tasks.get(task);
    if (!byName) this.#tasks.set(task, (byName = new Map()));
    byName.set(name, entry);
    // The session may end by itself (`exit`, a timeout): it leaves the table then.
    this.#arm(entry);
    return entry;
  }

  /** Marks a call on the session; the returned function ends it (and re-arms the idle timer). */
  hold(entry: SessionEntry): () => void {
    entry.busy++;
    clearTimeout(entry.idle);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      entry.busy--;
      this.#arm(entry);
    };
  }

  /** Ends a session and drops it from the table. */
  async end(entry: SessionEntry, reason: SessionEndReason): Promise<SessionEnd> {
    this.forget(entry);
    return entry.session.end(reason);
  }

  /** Drops an entry whose session ended (by itself or by end()). */
  forget(entry: SessionEntry): void {
    clearTimeout(entry.idle);
    entry.idle = undefined;
    const byName = this.#tasks.get(entry.task);
    if (byName?.get(entry.name) === entry) byName.delete(entry.name);
    if (byName?.size === 0) this.#tasks.delete(entry.task);
  }

  async endTask(task: string, reason: SessionEndReason = 'task_ended'): Promise<void> {
    const entries = [...(this.#tasks.get(task)?.values() ?? [])];
    await Promise.all(entries.map((e) => this.end(e, reason)));
  }

  /** Ends every session and refuses new ones (the runtime closes). */
  async endAll(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.all().map((e) => this.end(e, 'task_ended')));
  }

  #arm(entry: SessionEntry): void {
    clearTimeout(entry.idle);
    if (entry.busy > 0 || entry.session.ended) return;
    entry.idle = setTimeout(() => void this.end(entry, 'idle'), this.#idleMs);
    entry.idle.unref();
  }
}
