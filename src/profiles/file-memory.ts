import { LRUCache } from 'lru-cache';
import type { FileMemory, TaskNotes } from './profile.js';

/** Files a task remembers; bounded, the least recently used forgotten first (a forgotten file just needs a new Read). */
export class BoundedFileMemory implements FileMemory {
  readonly #files = new LRUCache<string, string>({ max: 10_000 });
  get(path: string): string | undefined {
    return this.#files.get(path);
  }
  set(path: string, sha256: string): void {
    this.#files.set(path, sha256);
  }
}

/** A task's other notes; bounded the same way (a forgotten note is as if never taken). */
export class BoundedNotes implements TaskNotes {
  readonly #notes = new LRUCache<string, { value: unknown }>({ max: 10_000 });
  get(key: string): unknown {
    return this.#notes.get(key)?.value;
  }
  set(key: string, value: unknown): void {
    this.#notes.set(key, { value });
  }
}
