// The stdio transport of `toolgate serve --stdio`: newline-delimited JSON-RPC on a pair of
// streams, as the SDK's StdioServerTransport, with two differences (issue 14, found 2026-12-06):
//
// - A message larger than the bound is answered, not fatal. The SDK's transport closes the whole
//   connection on a message over its 10 MB buffer: every call in flight on it is lost, and the
//   agent's session with it, for one large argument (a 12 MB fs.write). Here the message is
//   skipped to its end and its request answered with a JSON-RPC error (-32600, data.code
//   `limit_exceeded`); the connection goes on. The bound (64 MiB) is above every argument a tool
//   takes (fs.patch's 16 MiB diff, JSON-escaped), so a tool refuses its own too-large argument
//   with its own typed error first.
// - A message is joined once from its chunks. The SDK joined what it held with each new chunk
//   and searched it again from its start: quadratic in the message's length.
//
// Messages are parsed and serialized with the SDK's own functions (deserializeMessage,
// serializeMessage), so everything else is as the SDK does it: a line that is not JSON is
// skipped, one that is JSON but not JSON-RPC is reported to onerror.
import type { Readable, Writable } from 'node:stream';
import { deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

/** The largest message read (bytes of one line). */
export const STDIO_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How much of a skipped message's start and end is kept to find its id. */
const ID_BYTES = 4096;
const NEWLINE = 0x0a;

/** A JSON-RPC id's text at the start of `s` (a number or a string), parsed, or null. */
function idValue(s: string): string | number | null {
  const m = /^\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(s);
  if (m === null) return null;
  try {
    const id: unknown = JSON.parse(m[1] as string);
    return typeof id === 'number' || typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/**
 * The top-level `id` of a request skipped unread, from its first and last bytes, or null. At the
 * start, only a key of the outer object counts (the scan tracks strings and depth, so an `id`
 * inside params is not taken); at the end, only an `"id": value` that closes the outer object
 * (as the SDK's client writes it: last). Answering another request's id would fail the wrong call.
 */
export function requestIdOf(head: string, tail: string): string | number | null {
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') {
      let j = i + 1;
      while (j < head.length && head[j] !== '"') j += head[j] === '\\' ? 2 : 1;
      if (j >= head.length) break;
      const key = head.slice(i + 1, j);
      i = j;
      if (depth === 1 && key === 'id') {
        const colon = /^\s*:/.exec(head.slice(j + 1));
        if (colon) return idValue(head.slice(j + 1 + colon[0].length));
      }
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  const last = /,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*}\s*$/.exec(tail);
  return last === null ? null : idValue(last[1] as string);
}

/** The parts at one end of `parts` that hold at least ID_BYTES (all of them if fewer), joined. */
function edgeOf(parts: readonly Buffer[], end: 'start' | 'end'): Buffer {
  const taken: Buffer[] = [];
  let bytes = 0;
  for (let i = 0; i < parts.length && bytes < ID_BYTES; i++) {
    const part = parts[end === 'start' ? i : parts.length - 1 - i] as Buffer;
    taken.push(part);
    bytes += part.length;
  }
  return Buffer.concat(end === 'start' ? taken : taken.reverse());
}

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #max: number;
  /** The message begun and not yet ended, in parts (copies: a stream may reuse its chunks). */
  #parts: Buffer[] = [];
  #bytes = 0;
  /** Skipping a message over the bound: its start and its last bytes so far, kept to find its id, and its length. */
  #skipping: { head: Buffer; tail: Buffer; bytes: number } | null = null;
  #started = false;
  #closed = false;
  /**
   * Whether the output is corked until the current turn's ticks and microtasks are done. The
   * answers of calls whose receipts one writer batch committed are all made in that turn: corked,
   * they leave in one write(2) instead of one each, and the client wakes once for them.
   */
  #corked = false;
  readonly #uncork = (): void => {
    this.#corked = false;
    this.#output.uncork();
  };

  constructor(input: Readable, output: Writable, opts: { readonly maxMessageBytes?: number } = {}) {
    this.#input = input;
    this.#output = output;
    this.#max = opts.maxMessageBytes ?? STDIO_MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('LineStdioTransport already started');
    this.#started = true;
    if (this.#input.readableEnded || this.#input.destroyed) setImmediate(this.#onInputClose);
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onInputError);
    this.#input.on('end', this.#onInputClose);
    this.#input.on('close', this.#onInputClose);
    this.#output.on('error', this.#onOutputError);
  }

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
      this.#take(chunk.subarray(start, i), true);
      start = i + 1;
      if (this.#closed) return;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start), false);
  };

  /** A piece of the current message; `ends`: the message ends with it. */
  #take(piece: Buffer, ends: boolean): void {
    if (this.#skipping === null && this.#bytes + piece.length > this.#max) {
      // What was held goes, but its first and last bytes are kept (joined from the parts at each
      // end only, not the whole): the id may lie in either.
      const head = Buffer.concat([edgeOf(this.#parts, 'start'), piece.subarray(0, ID_BYTES)]).subarray(0, ID_BYTES);
      this.#skipping = { head: Buffer.from(head), tail: Buffer.from(edgeOf(this.#parts, 'end').subarray(-ID_BYTES)), bytes: this.#bytes };
      this.#parts = [];
      this.#bytes = 0;
    }
    if (this.#skipping !== null) {
      const s = this.#skipping;
      s.bytes += piece.length;
      s.tail = piece.length >= ID_BYTES ? Buffer.from(piece.subarray(piece.length - ID_BYTES)) : Buffer.concat([s.tail, piece]).subarray(-ID_BYTES);
      if (ends) this.#refuse(s);
      return;
    }
    if (!ends) {
      this.#parts.push(Buffer.from(piece));
      this.#bytes += piece.length;
      return;
    }
    const line = this.#parts.length ? Buffer.concat([...this.#parts, piece]) : piece;
    this.#parts = [];
    this.#bytes = 0;
    this.#deliver(line.toString('utf8').replace(/\r$/, ''));
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      if (error instanceof SyntaxError) return; // not JSON: skipped, as the SDK does
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  /** A message over the bound, skipped to its end: its request (when its id can be found) is answered. */
  #refuse(skipped: { head: Buffer; tail: Buffer; bytes: number }): void {
    this.#skipping = null;
    const id = requestIdOf(skipped.head.toString('utf8'), skipped.tail.toString('utf8'));
    const message = `the message is ${skipped.bytes} bytes; the largest read is ${this.#max}`;
    this.onerror?.(new Error(`${message}: skipped${id === null ? ' (no request id found in its start)' : `, request ${JSON.stringify(id)} answered with an error`}`));
    if (id === null) return;
    this.send({ jsonrpc: '2.0', id, error: { code: -32600, message, data: { code: 'limit_exceeded', limit: 'message_bytes', value: this.#max, bytes: skipped.bytes } } }).catch(
      (e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))),
    );
  }

  readonly #onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onInputClose = (): void => {
    void this.close();
  };

  readonly #onOutputError = (error: Error): void => {
    if (this.#closed) return;
    this.onerror?.(error);
    void this.close();
  };

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onInputError);
    this.#input.off('end', this.#onInputClose);
    this.#input.off('close', this.#onInputClose);
    // The output's error listener stays, silent now: a write after close may still fail, and is
    // no one's to report then (the SDK's transport does the same).
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#parts = [];
    this.#skipping = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the stdio transport is closed'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error): void => {
        if (settled) return;
        settled = true;
        this.#output.off('error', onError);
        this.#output.off('drain', onDrain);
        if (error) reject(error);
        else resolve();
      };
      const onError = (error: Error): void => settle(error);
      const onDrain = (): void => settle();
      this.#output.once('error', onError);
      if (!this.#corked) {
        this.#corked = true;
        this.#output.cork();
        process.nextTick(this.#uncork);
      }
      if (this.#output.write(serializeMessage(message))) settle();
      else if (!settled) this.#output.once('drain', onDrain);
    });
  }
}
