import { LRUCache } from 'lru-cache';
import type { FileMemory } from './profile.js';

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
