import type { Readable, Writable } from 'node:stream';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { newTaskId } from '../protocol/index.js';
import type { Runtime } from '../runtime/index.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';
import { LineStdioTransport } from './stdio-transport.js';
import { ToolListing } from './tool-listing.js';

export interface StdioServeOptions extends McpServerOptions {
  /** The task of this connection; default a fresh one (a new connection is a new task). */
  readonly taskId?: string;
  readonly input?: Readable;
  readonly output?: Writable;
  readonly onError?: (error: Error) => void;
  /** The largest message read; a request over it is answered with an error (stdio-transport.ts). Default 64 MiB. */
  readonly maxMessageBytes?: number;
}

export interface StdioServing {
  /** Settles when the client closed its end (stdin ended) or `close()` was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the runtime's current tools over stdio, to clients of both protocol eras (2025-11-25
 * and 2026-07-28). The caller owns the runtime: close it after `closed` settles.
 */
export function serveMcpStdio(rt: Runtime, opts: StdioServeOptions = {}): StdioServing {
  const taskId = opts.taskId ?? newTaskId();
  // The session is one task: it is listed what it pins (a canary version only when it is in the canary).
  const listing = new ToolListing(rt.registry.currentOf(rt.registry.manifestFor(taskId, Date.now())));
  const input = opts.input ?? process.stdin;
  const transport = new LineStdioTransport(input, opts.output ?? process.stdout, opts.maxMessageBytes === undefined ? {} : { maxMessageBytes: opts.maxMessageBytes });
  const handle = serveStdio(() => createMcpServer(rt, listing, { taskId }, opts), {
    transport,
    ...(opts.onError ? { onerror: opts.onError } : {}),
  });
  let closing: Promise<void> | undefined;
  let settle: () => void = () => {};
  const closed = new Promise<void>((resolve) => (settle = resolve));
  const onInputEnd = (): void => void close();
  const close = (): Promise<void> =>
    (closing ??= handle
      .close()
      .catch((e: unknown) => opts.onError?.(e instanceof Error ? e : new Error(String(e))))
      // The connection was the task: what tools hold for it (shell sessions) ends with it.
      .then(() => rt.endTask(taskId))
      .finally(() => {
        input.off('end', onInputEnd);
        input.off('close', onInputEnd);
        settle();
      }));
  // The client closing its end is the end of the connection (and of its running calls).
  input.once('end', onInputEnd);
  input.once('close', onInputEnd);
  return { closed, close };
}
