// The lines of matched files, read once per page, for context_lines.
import type { FileReader } from './file-access.js';
import type { ContextSource } from './page.js';

const MAX_CONTEXT_FILE_BYTES = 16 * 1024 * 1024;

/** Lines of files read beneath the root (terminators stripped); larger files give no context. */
export class FileLines implements ContextSource {
  readonly #cache = new Map<string, readonly string[] | null>();
  constructor(private readonly reader: FileReader) {}
  lines(path: string): readonly string[] | null {
    if (!this.#cache.has(path)) {
      const buf = this.reader.read(path, MAX_CONTEXT_FILE_BYTES);
      this.#cache.set(path, buf === null ? null : buf.toString('utf8').split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
    }
    return this.#cache.get(path) ?? null;
  }
}
