// The server under test, as an MCP client sees it: started from a command line (stdio) or reached
// at a URL (Streamable HTTP). Every call has a bound; a call past it is `hung` (cancelled, and the
// server started afresh), a connection that ends under a call is `crashed`, and the next attempt
// starts the server again.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { TOOLGATE_VERSION } from '../protocol/index.js';

export type Answer =
  | { readonly kind: 'result'; readonly isError: boolean; readonly text: string; readonly typedCode: string | null; readonly bytes: number; readonly ms: number; readonly structured: unknown }
  | { readonly kind: 'protocol_error'; readonly code: number; readonly message: string; readonly ms: number }
  | { readonly kind: 'hung'; readonly ms: number }
  | { readonly kind: 'crashed'; readonly message: string; readonly ms: number };

export interface TargetSpec {
  /** An argv to start over stdio, or a URL. */
  readonly argv?: readonly string[];
  readonly url?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Headers of every HTTP request (a bearer token). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A typed error code in the result, where the server gives one (Toolgate's structuredContent.error.code). */
function typedCodeOf(structured: unknown): string | null {
  const error = (structured as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : null;
}

export class Target {
  readonly #spec: TargetSpec;
  #client: Client | null = null;
  #closed = false;
  starts = 0;

  constructor(spec: TargetSpec) {
    this.#spec = spec;
  }

  async #connect(): Promise<Client> {
    if (this.#client) return this.#client;
    const client = new Client({ name: 'toolgate-conformance', version: TOOLGATE_VERSION });
    const transport = this.#spec.url
      ? new StreamableHTTPClientTransport(new URL(this.#spec.url), { requestInit: { headers: { ...this.#spec.headers } } })
      : new StdioClientTransport({ command: this.#spec.argv?.[0] ?? 'false', args: [...(this.#spec.argv ?? []).slice(1)], env: { ...(process.env as Record<string, string>), ...this.#spec.env }, stderr: 'ignore' });
    await client.connect(transport, { signal: AbortSignal.timeout(60_000) });
    this.starts++;
    client.onclose = () => {
      if (this.#client === client) this.#client = null;
    };
    this.#client = client;
    return client;
  }

  /** The names of the server's tools. */
  async tools(): Promise<string[]> {
    const client = await this.#connect();
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names;
  }

  /** One call, bounded by `boundMs`; `cancelAfterMs` cancels it from the client side first. */
  async call(name: string, args: unknown, o: { boundMs: number; cancelAfterMs?: number }): Promise<Answer> {
    const started = Date.now();
    const ms = () => Date.now() - started;
    let client: Client;
    try {
      client = await this.#connect();
    } catch (e) {
      return { kind: 'crashed', message: `could not (re)start the server: ${(e as Error).message}`, ms: ms() };
    }
    const abort = new AbortController();
    const bound = setTimeout(() => abort.abort(new Error('bound')), o.boundMs);
    const cancel = o.cancelAfterMs !== undefined ? setTimeout(() => abort.abort(new Error('cancelled')), o.cancelAfterMs) : null;
    try {
      const r = await client.callTool({ name, arguments: args as Record<string, unknown> }, { signal: abort.signal, timeout: o.boundMs + 1_000 });
      const text = [...(Array.isArray(r.content) ? r.content : []).map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))), r.structuredContent ? JSON.stringify(r.structuredContent) : ''].join('\n');
      return { kind: 'result', isError: r.isError === true, text, typedCode: typedCodeOf(r.structuredContent), bytes: Buffer.byteLength(text), ms: ms(), structured: r.structuredContent ?? null };
    } catch (e) {
      const reason: unknown = abort.signal.reason;
      if (abort.signal.aborted && reason instanceof Error && reason.message === 'bound') {
        // A server stuck in one call may be stuck for good (a synchronous read of a FIFO): the
        // next attempt gets a fresh one, so one hang is counted once, not in every later attempt.
        await this.#drop(client);
        return { kind: 'hung', ms: ms() };
      }
      if (abort.signal.aborted && reason instanceof Error && reason.message === 'cancelled') return { kind: 'protocol_error', code: 0, message: 'cancelled by the kit', ms: ms() };
      const code = (e as { code?: unknown }).code;
      if (this.#client !== client || (typeof code === 'number' && code === -32000)) {
        await this.#drop(client);
        return { kind: 'crashed', message: (e as Error).message, ms: ms() };
      }
      if (typeof code === 'number') return { kind: 'protocol_error', code, message: (e as Error).message, ms: ms() };
      await this.#drop(client);
      return { kind: 'crashed', message: (e as Error).message, ms: ms() };
    } finally {
      clearTimeout(bound);
      if (cancel) clearTimeout(cancel);
    }
  }

  async #drop(client: Client): Promise<void> {
    if (this.#client === client) this.#client = null;
    await client.close().catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    const c = this.#client;
    this.#client = null;
    await c?.close().catch(() => {});
  }

  get closed(): boolean {
    return this.#closed;
  }
}
