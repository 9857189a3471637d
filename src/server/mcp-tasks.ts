// MCP tasks (2025-11-25, experimental; docs/mcp.md#long-calls-tasks): a tools/call of a long
// tool (shell.exec) that the client augments with `task` answers at once with the task;
// `tasks/get` shows its status, `tasks/result` waits for the tool result (with its receipt),
// `tasks/cancel` stops it (the process gone, a cancelled receipt), `tasks/list` lists them.
// SDK 2.4 keeps the 2025-11-25 task vocabulary but has no runtime for it, hence this file. The
// 2026-07-28 revision moved tasks out of the core: the SDK strips the `tasks` capability and
// `execution` from what this server sends on that era, and its clients use attach instead.
import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type Server, type Task, type TaskStatus } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { FormedResult } from './result-form.js';
import type { McpToolDefinition } from './tool-listing.js';

/** Registry names of the tools a client may run as a task (`execution.taskSupport: optional`). */
export const TASK_TOOLS: ReadonlySet<string> = new Set(['shell.exec']);

export interface McpTaskLimits {
  /** A task's result is kept this long from its creation when the client asks for no ttl. Default 1 hour. */
  readonly defaultTtlMs: number;
  /** The longest ttl granted. Default 24 hours. */
  readonly maxTtlMs: number;
  /** Tasks one session keeps (running or with a result); a new one beyond is refused. Default 256. */
  readonly maxTasks: number;
  /** Suggested between two tasks/get. Default 1 s. */
  readonly pollIntervalMs: number;
}

export const DEFAULT_TASK_LIMITS: McpTaskLimits = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasks: 256, pollIntervalMs: 1_000 };

/** How a task's call is run: the explicit cancel, and where its progress goes. */
export type TaskRun = (o: { cancel: AbortSignal; onProgress: ((p: { progress: number; total?: number; message?: string }) => void) | undefined }) => Promise<FormedResult>;

interface Entry {
  task: Task;
  readonly controller: AbortController;
  readonly done: Promise<void>;
  outcome: { result: FormedResult } | { error: unknown } | null;
  timer: NodeJS.Timeout | null;
}

/** The one revision with tasks in its core; 2026-07-28 moved them to an extension. */
const TASKS_REVISION = '2025-11-25';
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);
const PAGE = 100;

function invalid(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/**
 * The tasks of one MCP session. Each is a `runtime.call` under its own explicit cancel (not
 * the tools/call request's signal, which ends when the task is answered). Everything it holds
 * (timers, running calls) ends with the session.
 */
export class McpTasks {
  readonly #server: Server;
  readonly #limits: McpTaskLimits;
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(server: Server, limits: McpTaskLimits = DEFAULT_TASK_LIMITS) {
    this.#server = server;
    this.#limits = limits;
  }

  /** Declares the capability and answers tasks/*; call before the server connects. */
  install(): void {
    const s = this.#server;
    s.registerCapabilities({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
    // The typed overload knows no tasks/* (SDK 2.4 dropped them from its method map): the schema form.
    const byId = { params: z.looseObject({ taskId: z.string() }) };
    s.setRequestHandler('tasks/get', byId, (p) => ({ ...this.#entry(p.taskId).task }));
    s.setRequestHandler('tasks/result', byId, async (p, ctx) => this.#result(p.taskId, ctx.mcpReq.signal));
    s.setRequestHandler('tasks/list', { params: z.looseObject({ cursor: z.string().optional() }) }, (p) => this.#list(p.cursor));
    s.setRequestHandler('tasks/cancel', byId, async (p) => this.#cancel(p.taskId));
    const previous = s.onclose;
    s.onclose = () => {
      this.close();
      previous?.();
    };
  }

  /** Whether this connection speaks the revision tasks belong to (a `task` on any other is ignored, as the spec asks). */
  offered(): boolean {
    return this.#server.getNegotiatedProtocolVersion() === TASKS_REVISION;
  }

  /** tools/list with `execution.taskSupport` on the tools that may run as a task. */
  listed(tools: readonly McpToolDefinition[], registryName: (mcpName: string) => string): McpToolDefinition[] {
    return tools.map((t) => (TASK_TOOLS.has(registryName(t.name)) ? { ...t, execution: { taskSupport: 'optional' as const } } : t));
  }

  /**
   * Starts the call as a task and answers the CreateTaskResult. A tool without task support is
   * -32601, as the spec asks. The result keeps a text content too, for a host that shows the
   * model something at once (and because SDK 2.4 requires `content` on every tools/call result).
   */
  create(tool: string, ttl: number | undefined, progressToken: string | number | undefined, run: TaskRun): Record<string, unknown> {
    if (!TASK_TOOLS.has(tool)) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${tool} does not run as a task; call it without "task"`);
    if (this.#closed) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'the session is closing');
    if (this.#entries.size >= this.#limits.maxTasks) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `this session keeps ${this.#limits.maxTasks} tasks at most; wait for one to expire`);
    const now = new Date().toISOString();
    const taskId = randomUUID();
    const grantedTtl = Math.min(Math.max(ttl ?? this.#limits.defaultTtlMs, 1_000), this.#limits.maxTtlMs);
    const task: Task = { taskId, status: 'working', statusMessage: `${tool} is running`, createdAt: now, lastUpdatedAt: now, ttl: grantedTtl, pollInterval: this.#limits.pollIntervalMs };
    const controller = new AbortController();
    const onProgress =
      progressToken === undefined
        ? undefined
        : (p: { progress: number; total?: number; message?: string }): void => {
            // Valid for the task's lifetime (spec); advisory: a client gone must not fail the call.
            this.#server.notification({ method: 'notifications/progress', params: { progressToken, ...p, _meta: { [RELATED_TASK_META_KEY]: { taskId } } } }).catch(() => {});
          };
    // The settlement callbacks run later, once `entry` exists.
    const done = run({ cancel: controller.signal, onProgress }).then(
      (result) => this.#finish(entry, { result }),
      (error: unknown) => this.#finish(entry, { error }),
    );
    const entry: Entry = { task, controller, done, outcome: null, timer: null };
    this.#entries.set(taskId, entry);
    this.#expireAfter(entry, grantedTtl);
    return {
      task: { ...task },
      content: [{ type: 'text', text: `${tool} runs as task ${taskId}; its result comes with tasks/result` }],
      _meta: { 'io.modelcontextprotocol/model-immediate-response': `${tool} is running as task ${taskId}; its result will follow.` },
    };
  }

  /** The session ended: running calls are cancelled (nobody can ask for their result), timers cleared. */
  close(): void {
    this.#closed = true;
    for (const e of this.#entries.values()) {
      if (e.timer !== null) clearTimeout(e.timer);
      e.controller.abort();
    }
    this.#entries.clear();
  }

  #finish(entry: Entry, outcome: { result: FormedResult } | { error: unknown }): void {
    entry.outcome = outcome;
    const meta = 'result' in outcome ? outcome.result._meta : null;
    const ended = meta === null ? 'the call failed without a receipt' : `${String(meta['toolgate/tool'])} ${String(meta['toolgate/status'])} (receipt ${String(meta['toolgate/receipt_id'])})`;
    // A cancelled task stays cancelled whatever its call ended with (spec); its message names the receipt.
    if (entry.task.status === 'cancelled') {
      entry.task = { ...entry.task, statusMessage: `cancelled by tasks/cancel; ${ended}` };
      return;
    }
    const status: TaskStatus = meta === null ? 'failed' : meta['toolgate/status'] === 'cancelled' ? 'cancelled' : 'result' in outcome && outcome.result.isError ? 'failed' : 'completed';
    this.#update(entry, status, ended);
  }

  #update(entry: Entry, status: TaskStatus, message: string): void {
    entry.task = { ...entry.task, status, statusMessage: message, lastUpdatedAt: new Date().toISOString() };
    if (this.#closed) return;
    // Optional for the receiver, and the client must not rely on it (spec): advisory.
    this.#server.notification({ method: 'notifications/tasks/status', params: { ...entry.task } }).catch(() => {});
  }

  /** Removed `ttl` after creation; one still running then is kept until it ends, and a minute for its result. */
  #expireAfter(entry: Entry, ms: number): void {
    entry.timer = setTimeout(() => {
      entry.timer = null;
      if (entry.outcome === null) void entry.done.then(() => this.#expireAfter(entry, 60_000));
      else this.#entries.delete(entry.task.taskId);
    }, ms);
    entry.timer.unref();
  }

  #entry(taskId: string): Entry {
    const e = this.#entries.get(taskId);
    if (e === undefined) throw invalid(`no task ${JSON.stringify(taskId.slice(0, 64))} in this session (unknown, or expired)`);
    return e;
  }

  async #result(taskId: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    const e = this.#entry(taskId);
    if (e.outcome === null) {
      let onAbort = (): void => {};
      const aborted = new Promise<void>((resolve) => {
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        await Promise.race([e.done, aborted]);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    }
    const outcome = e.outcome;
    if (outcome === null) throw new ProtocolError(ProtocolErrorCode.InternalError, 'tasks/result was cancelled before the task ended');
    // Exactly what the tools/call would have answered: its result, or its JSON-RPC error.
    if ('error' in outcome) throw outcome.error;
    return { ...outcome.result, _meta: { ...outcome.result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  }

  #list(cursor: string | undefined): { tasks: Task[]; nextCursor?: string } {
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(start) || start < 0 || (cursor !== undefined && String(start) !== cursor)) throw invalid('invalid cursor');
    const all = [...this.#entries.values()].map((e) => ({ ...e.task }));
    const page = all.slice(start, start + PAGE);
    return start + PAGE < all.length ? { tasks: page, nextCursor: String(start + PAGE) } : { tasks: page };
  }

  /** Cancelled before the answer (spec); answered once the call has ended, so its processes are gone. */
  async #cancel(taskId: string): Promise<Task> {
    const e = this.#entry(taskId);
    if (TERMINAL.has(e.task.status)) throw invalid(`task ${taskId} is already ${e.task.status}`);
    this.#update(e, 'cancelled', 'cancelled by tasks/cancel');
    e.controller.abort();
    await e.done;
    return { ...e.task };
  }
}
