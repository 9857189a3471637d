// The lines around matches, for context_lines: a matched file is read once per page and its
// lines are found as they are asked for, not all split at once (a 16 MB file of a million
// lines was split into a million strings for each page that showed context from it: 280 ms).
import type { FileReader } from './file-access.js';
import { cutBytes, type ContextSource } from './page.js';
import { MAX_LINE_BYTES } from './schema.js';

const MAX_CONTEXT_FILE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

/** A file's bytes and where its lines start, found up to the furthest line asked for. */
class LineStarts {
  /** starts[i]: the byte where line i + 1 starts. */
  readonly #starts: number[] = [0];
  /** Every newline before this byte is in #starts. */
  #scanned = 0;
  constructor(readonly buf: Buffer) {}

  /** Lines in the file: a final newline ends the last line, it does not start another. */
  #known(line: number): boolean {
    while (this.#starts.length < line + 1 && this.#scanned < this.buf.length) {
      const nl = this.buf.indexOf(NEWLINE, this.#scanned);
      if (nl === -1) {
        this.#scanned = this.buf.length;
        break;
      }
      this.#starts.push(nl + 1);
      this.#scanned = nl + 1;
    }
    return line <= this.#starts.length && (this.#starts[line - 1] as number) < this.buf.length;
  }

  /** Line `line` (1-based) without its terminator, cut as a result line is; undefined past the end. */
  line(line: number): string | undefined {
    if (line < 1 || !this.#known(line)) return undefined;
    const start = this.#starts[line - 1] as number;
    let end = line < this.#starts.length ? (this.#starts[line] as number) - 1 : this.buf.length;
    if (end > start && this.buf[end - 1] === CR) end--;
    return end - start <= MAX_LINE_BYTES ? this.buf.toString('utf8', start, end) : cutBytes(this.buf.subarray(start, end));
  }
}

/** Lines of files read beneath the root; a file larger than 16 MiB gives no context. */
export class FileLines implements ContextSource {
  /** The file last asked for: a page adds one file's matches after another. */
  #last: { readonly path: string; readonly lines: LineStarts | null } | null = null;
  constructor(private readonly reader: FileReader) {}

  lines(path: string, first: number, count: number): string[] | null {
    if (this.#last?.path !== path) {
      const buf = this.reader.read(path, MAX_CONTEXT_FILE_BYTES);
      this.#last = { path, lines: buf === null ? null : new LineStarts(buf) };
    }
    const file = this.#last.lines;
    if (file === null) return null;
    const out: string[] = [];
    for (let n = Math.max(1, first); n < first + count; n++) {
      const text = file.line(n);
      if (text === undefined) break;
      out.push(text);
    }
    return out;
  }
}
