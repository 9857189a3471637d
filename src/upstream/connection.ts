// One upstream MCP server as Toolgate owns it: started (sandboxed, for a command) and connected
// with the SDK's Client, its tool list read at each (re)connect, on `notifications/tools/list_changed`
// and on an optional interval; restarted after a crash with a bounded backoff; closed with its
// whole process tree on shutdown.
import { rmSync } from 'node:fs';
import { Client, SdkError, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { TOOLGATE_VERSION, ToolgateError } from '../protocol/index.js';
import { isStdio, type UpstreamConfig } from './config.js';
import { launchOf, type Launch, type LaunchContext } from './launch.js';

/** Why the tool list was read. */
/**
 * The largest message read from a stdio upstream. The SDK's transport closes the connection on a
 * message over its buffer (10 MB by default): a large result then failed the call as a crash
 * (`upstream_unavailable`) and restarted the upstream, its state lost, instead of reaching the
 * runtime, which keeps a large result as an artifact. As `serve --stdio`'s own bound
 * (src/server/stdio-transport.ts).
 */
export const UPSTREAM_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export type ListingCause = 'start' | 'restart' | 'list_changed' | 'check';

export interface ConnectionHooks {
  /** A fresh tool list; the gateway turns a change into a new registry revision. */
  onTools(tools: readonly Tool[], cause: ListingCause): void;
}

/** Consecutive failed starts before the connection waits for the next call to try again. */
const MAX_RESTARTS = 5;
const BACKOFF_BASE_MS = 200;
const BACKOFF_MAX_MS = 5_000;
const START_TIMEOUT_MS = 30_000;

interface Live {
  readonly client: Client;
  readonly transport: StdioClientTransport | StreamableHTTPClientTransport;
  /** Resolves when this connection ended (crash, close). */
  readonly ended: Promise<void>;
}

export class UpstreamConnection {
  readonly name: string;
  readonly #config: UpstreamConfig;
  readonly #launchCtx: LaunchContext;
  readonly #hooks: ConnectionHooks;
  #launch: Launch | null = null;
  #live: Live | null = null;
  #starting: Promise<Live> | null = null;
  #closed = false;
  #failures = 0;
  /** Starts since the first (each restart after a crash counts). */
  restarts = 0;
  #backoff: NodeJS.Timeout | null = null;
  #check: NodeJS.Timeout | null = null;
  #started = false;

  constructor(name: string, config: UpstreamConfig, launchCtx: LaunchContext, hooks: ConnectionHooks) {
    this.name = name;
    this.#config = config;
    this.#launchCtx = launchCtx;
    this.#hooks = hooks;
  }

  /** The data dir a stdio upstream writes in (null for a URL upstream or before the first start). */
  get dataDir(): string | null {
    return this.#launch?.dataDir ?? null;
  }

  /** The pid of the sandbox's bubblewrap (null when not running or remote). */
  get pid(): number | null {
    const t = this.#live?.transport;
    return t instanceof StdioClientTransport ? t.pid : null;
  }

  /** A connected client, starting the server when it is not running. */
  client(): Promise<Client> {
    if (this.#closed) return Promise.reject(this.#unavailable('closed', 'the gateway is shut down'));
    if (this.#live) return Promise.resolve(this.#live.client);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    });
    return this.#starting.then((l) => l.client);
  }

  /** Resolves when the current connection ends (a crash or close); immediately when none is live. */
  ended(): Promise<void> {
    return this.#live?.ended ?? Promise.resolve();
  }

  /**
   * Runs one request with a connected client. A URL upstream that restarted has forgotten our
   * session and refuses the request unread (HTTP 404): the client is dropped, a new session opened
   * (its tool list read again, as after a restart) and the request sent once more.
   */
  async request<T>(run: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await run(client);
    } catch (e) {
      if (!sessionGone(e)) throw e;
      if (this.#live?.client === client) {
        this.#live = null;
        await client.close().catch(() => {});
      }
      return run(await this.client());
    }
  }

  /** Reads the tool list now (a check). */
  async relist(cause: ListingCause): Promise<readonly Tool[]> {
    const client = await this.client();
    const tools = await listAll(client);
    this.#hooks.onTools(tools, cause);
    return tools;
  }

  async #start(): Promise<Live> {
    if (this.#backoff) {
      clearTimeout(this.#backoff);
      this.#backoff = null;
    }
    const cause: ListingCause = this.#started ? 'restart' : 'start';
    let transport: StdioClientTransport | StreamableHTTPClientTransport;
    try {
      transport = this.#transport();
    } catch (e) {
      this.#failures++;
      throw ToolgateError.isInstance(e) ? e : this.#unavailable('start_failed', (e as Error).message);
    }
    const client = new Client(
      { name: 'toolgate-gateway', version: TOOLGATE_VERSION },
      {
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => {
              void this.relist('list_changed').catch(() => {});
            },
          },
        },
      },
    );
    let ended!: () => void;
    const endedP = new Promise<void>((r) => (ended = r));
    const timeout = AbortSignal.timeout(START_TIMEOUT_MS);
    try {
      await client.connect(transport, { signal: timeout });
      const tools = await listAll(client, timeout);
      const live: Live = { client, transport, ended: endedP };
      client.onclose = () => {
        ended();
        if (this.#live === live) this.#live = null;
        if (!this.#closed) this.#scheduleRestart();
      };
      this.#live = live;
      this.#failures = 0;
      if (this.#started) this.restarts++;
      this.#started = true;
      this.#hooks.onTools(tools, cause);
      this.#armCheck();
      return live;
    } catch (e) {
      this.#failures++;
      await client.close().catch(() => {});
      ended();
      if (!this.#closed && this.#failures < MAX_RESTARTS && this.#started) this.#scheduleRestart();
      throw this.#unavailable('start_failed', `${(e as Error).message}`);
    }
  }

  #transport(): StdioClientTransport | StreamableHTTPClientTransport {
    const c = this.#config;
    if (isStdio(c)) {
      // Each start scans the workspace again (a shown workspace's secret files are masked as of
      // the start); the data dir Toolgate made stays the same across restarts.
      const l = launchOf(this.name, this.#launch?.ownsDataDir ? { ...c, data_dir: this.#launch.dataDir } : c, this.#launchCtx);
      this.#launch = this.#launch?.ownsDataDir ? { ...l, ownsDataDir: true } : l;
      return new StdioClientTransport({ command: l.command, args: l.args, env: l.env, cwd: '/', stderr: 'ignore', maxBufferSize: UPSTREAM_MAX_MESSAGE_BYTES });
    }
    const headers: Record<string, string> = {};
    for (const [h, ref] of Object.entries(c.headers)) {
      const value = this.#launchCtx.env[ref.from_env];
      if (value !== undefined && value !== '') headers[h] = `${ref.prefix ?? ''}${value}`;
    }
    return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers } });
  }

  /** After a crash: start again after a backoff that doubles with each consecutive failure, up to MAX_RESTARTS. */
  #scheduleRestart(): void {
    if (this.#closed || this.#backoff || this.#failures >= MAX_RESTARTS) return;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.#failures);
    this.#backoff = setTimeout(() => {
      this.#backoff = null;
      if (this.#closed || this.#live || this.#starting) return;
      void this.client().catch(() => {});
    }, delay);
    this.#backoff.unref();
  }

  #armCheck(): void {
    const every = this.#config.check_interval_ms;
    if (every === undefined || this.#check) return;
    this.#check = setInterval(() => {
      if (this.#live) void this.relist('check').catch(() => {});
    }, every);
    this.#check.unref();
  }

  #unavailable(reason: 'start_failed' | 'crashed' | 'closed', message: string): ToolgateError<'upstream_unavailable'> {
    return new ToolgateError('upstream_unavailable', `upstream ${this.name}: ${message}`, { upstream: this.name, tool: null, reason, restarts: this.restarts, message });
  }

  /** Ends the server and everything it started; removes a data dir Toolgate made. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#backoff) clearTimeout(this.#backoff);
    if (this.#check) clearInterval(this.#check);
    await this.#starting?.catch(() => {});
    const live = this.#live;
    this.#live = null;
    if (live) {
      // The transport ends stdin, then SIGTERM, then SIGKILL to bubblewrap; its pid namespace's
      // init dies with it (--die-with-parent), which ends every process of the server.
      await live.client.close().catch(() => {});
      await live.ended;
    }
    if (this.#launch?.ownsDataDir) rmSync(this.#launch.dataDir, { recursive: true, force: true });
  }
}

/** A Streamable HTTP server answered 404 to a request of our session: it no longer knows it and ran nothing. */
export function sessionGone(e: unknown): boolean {
  return e instanceof SdkError && (e.data as { status?: unknown } | undefined)?.status === 404;
}

/** Every page of tools/list, fresh (never the client's cache). */
async function listAll(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  const out: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor === undefined ? undefined : { cursor }, { cacheMode: 'bypass', ...(signal ? { signal } : {}) });
    out.push(...r.tools);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  return out;
}
