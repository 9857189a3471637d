// The browsers of one runtime, one per task. A task's browser ends with the task (endTask), with
// a cancelled call of it (its page state is unknown after an interrupted effect), with
// browser.close, and with the runtime (dispose); the jail ends it with the runtime's process.
import type { BrowserSession } from './session.js';

export class BrowserSessions {
  readonly #byTask = new Map<string, BrowserSession>();
  readonly #starting = new Map<string, Promise<BrowserSession>>();
  #closed = false;

  get(task: string): BrowserSession | undefined {
    const s = this.#byTask.get(task);
    return s && !s.closed ? s : undefined;
  }

  /** The task's browser, started by `launch` when it has none; one launch at a time per task. */
  async open(task: string, launch: () => Promise<BrowserSession>): Promise<BrowserSession> {
    const have = this.get(task);
    if (have) return have;
    const pending = this.#starting.get(task);
    if (pending) return pending;
    const p = launch().then(async (s) => {
      // The runtime closed or the task ended while Chromium started: nobody will close it later.
      if (this.#closed) {
        await s.close();
        throw new Error('the runtime closed while the browser started');
      }
      this.#byTask.set(task, s);
      return s;
    });
    this.#starting.set(task, p);
    try {
      return await p;
    } finally {
      this.#starting.delete(task);
    }
  }

  async end(task: string): Promise<void> {
    const starting = this.#starting.get(task);
    const s = this.#byTask.get(task) ?? (starting ? await starting.catch(() => undefined) : undefined);
    this.#byTask.delete(task);
    await s?.close();
  }

  async endAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...new Set([...this.#byTask.keys(), ...this.#starting.keys()])].map((t) => this.end(t)));
  }

  /** Every open browser (tests look at their profiles). */
  all(): BrowserSession[] {
    return [...this.#byTask.values()].filter((s) => !s.closed);
  }
}
