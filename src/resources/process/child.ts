// Child processes on the host, outside the sandbox, for fixed argv only (search engines, git).
// Each one is killed (SIGKILL) when the signal aborts or when the caller stops reading, and is
// always reaped before the promise settles: no process outlives the call that started it.
import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { ChildOptions, ChildResult } from './child-types.js';
import { spawnChild } from './spawn-child.js';

export type { ChildOptions, ChildResult } from './child-types.js';

const STDERR_LIMIT = 64 * 1024;

export function runChild(command: string, args: readonly string[], opts: ChildOptions): Promise<ChildResult> {
  return new Promise<ChildResult>((resolve, reject) => {
    if (opts.signal.aborted) {
      for (const fd of opts.fds ?? []) closeSync(fd);
      resolve({ code: null, signal: null, stderr: '', killed: true });
      return;
    }
    const fds = opts.fds ?? [];
    let child;
    try {
      child = spawn(command, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe', ...fds], env: opts.env ?? process.env });
    } finally {
      // fork has copied them (or spawn threw): ours are not needed any more.
      for (const fd of fds) closeSync(fd);
    }
    // Piped above, so both are there; the check is for the type (stdio given as an array).
    const out = child.stdout;
    const err = child.stderr;
    if (out === null || err === null) throw new Error('spawned without its output pipes');
    let killed = false;
    let stderr = '';
    const kill = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    opts.signal.addEventListener('abort', kill, { once: true });
    out.on('data', (chunk: Buffer) => {
      if (killed) return;
      if (opts.onStdout(chunk) === false) kill();
    });
    err.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
    });
    child.once('error', (e) => {
      opts.signal.removeEventListener('abort', kill);
      reject(e);
    });
    child.once('close', (code, signal) => {
      opts.signal.removeEventListener('abort', kill);
      resolve({ code, signal, stderr, killed });
    });
  });
}

/** Runs to completion and returns stdout whole; started through posix_spawn where it can be (spawn-child.ts). */
export async function runCollect(command: string, args: readonly string[], cwd: string, signal: AbortSignal): Promise<ChildResult & { stdout: Buffer }> {
  const chunks: Buffer[] = [];
  const opts: ChildOptions = { cwd, signal, onStdout: (c) => void chunks.push(c) };
  const r = await (spawnChild(command, args, opts) ?? runChild(command, args, opts));
  return { ...r, stdout: Buffer.concat(chunks) };
}

/**
 * Splits a byte stream into records ending in `sep`; the last partial record is kept. A record
 * longer than a chunk is kept as its parts and joined once, when its end arrives: joining what
 * was kept with each new chunk and searching it again from its start was quadratic in the
 * record's length (ripgrep's 52 MB record of a 1 MB line of a million matches took the search
 * past its 10 s timeout; it is ~0.2 s of ripgrep).
 */
export class RecordSplitter {
  /** The record begun and not yet ended, in parts (copies: the caller may reuse its chunks). */
  #parts: Buffer[] = [];
  #bytes = 0;
  /** The rest of the current record is dropped (skipRest). */
  #skipping = false;
  constructor(private readonly sep: number) {}

  push(chunk: Buffer, onRecord: (record: Buffer) => boolean | void): boolean {
    let start = 0;
    if (this.#skipping) {
      const end = chunk.indexOf(this.sep);
      if (end === -1) return true;
      this.#skipping = false;
      start = end + 1;
    }
    for (let i = chunk.indexOf(this.sep, start); i !== -1; i = chunk.indexOf(this.sep, start)) {
      let rec = chunk.subarray(start, i);
      if (this.#parts.length) {
        this.#parts.push(rec);
        rec = Buffer.concat(this.#parts);
        this.#parts = [];
        this.#bytes = 0;
      }
      start = i + 1;
      if (onRecord(rec) === false) {
        this.#parts = [];
        this.#bytes = 0;
        return false;
      }
    }
    if (start < chunk.length) {
      this.#parts.push(Buffer.from(chunk.subarray(start)));
      this.#bytes += chunk.length - start;
    }
    return true;
  }

  /** Bytes of the record begun and not yet ended. */
  get pendingBytes(): number {
    return this.#bytes;
  }

  /**
   * The record begun so far, joined (and kept joined: a caller that looks again as the record
   * grows copies each byte about twice in all if it waits for the record to double between looks).
   */
  pending(): Buffer {
    if (this.#parts.length > 1) this.#parts = [Buffer.concat(this.#parts)];
    return this.#parts[0] ?? Buffer.alloc(0);
  }

  /** Drops the record begun and the rest of it still to come: the next record starts after its separator. */
  skipRest(): void {
    this.#parts = [];
    this.#bytes = 0;
    this.#skipping = true;
  }

  /** What is left after the stream ended without a final separator. */
  flush(): Buffer | null {
    const r = this.#parts.length ? Buffer.concat(this.#parts) : null;
    this.#parts = [];
    this.#bytes = 0;
    return r;
  }
}
