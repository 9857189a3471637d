// Shared parts of the approval tests: a runtime whose grant puts every write behind an approval,
// served over Streamable HTTP (both eras), SDK clients that elicit or not, and the built CLI.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { StoreFactory } from '../../src/store/index.js';
import { serveMcpHttp, type HttpServeOptions, type HttpServing } from '../../src/server/index.js';

export type Era = 'legacy' | '2026-07-28';
export const ERAS: readonly Era[] = ['legacy', '2026-07-28'];

/** Every write needs an approval; reads of anything in the workspace do not. */
export const ASKING_GRANT = { tools: ['*'], effects: ['read', 'write'], read: ['**'], write: ['**'], approval_required: ['write'] } as const;

export async function askingServer(dirs: { workspace: string; state: string }, opts: Partial<HttpServeOptions> = {}, store?: StoreFactory): Promise<{ rt: Runtime; serving: HttpServing }> {
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, ...(store ? { store } : {}), grant: { ...ASKING_GRANT, tools: [...ASKING_GRANT.tools], effects: [...ASKING_GRANT.effects], read: [...ASKING_GRANT.read], write: [...ASKING_GRANT.write], approval_required: [...ASKING_GRANT.approval_required] } });
  const serving = await serveMcpHttp(rt, { port: 0, taskId: `approvals-modern-${process.pid}`, ...opts });
  return { rt, serving };
}

export type Elicit = (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;

/** An SDK client of the era; with `elicit` it declares form elicitation and answers with it. */
export async function connect(url: string, era: Era, elicit: Elicit | null, extra: { autoFulfill?: boolean } = {}): Promise<Client> {
  const client = new Client(
    { name: 'approver-test', version: '1.0.0' },
    {
      capabilities: elicit ? { elicitation: { form: {} } } : {},
      ...(era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } }),
      ...(extra.autoFulfill === false ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (elicit) client.setRequestHandler('elicitation/create', (request, ctx) => elicit(request.params, ctx.mcpReq.signal));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** What a tools/call answered, as the tests look at it. */
export interface Answer {
  readonly isError: boolean;
  readonly code: string | undefined;
  readonly approvalId: string | undefined;
  readonly status: string | undefined;
  readonly text: string;
}

export function answerOf(result: unknown): Answer {
  const r = result as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown[]; _meta?: Record<string, unknown> };
  const error = r.structuredContent?.['error'] as { code?: string; data?: Record<string, unknown> } | undefined;
  const text = (r.content ?? []).map((c) => (c as { text?: string }).text ?? '').join('\n');
  return {
    isError: r.isError === true,
    code: error?.code,
    approvalId: typeof error?.data?.['approval_id'] === 'string' ? error.data['approval_id'] : undefined,
    status: r._meta?.['toolgate/status'] as string | undefined,
    text,
  };
}

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

/**
 * The built `toolgate` command as a child process. Asynchronous: the MCP server under test runs in
 * this process, and a synchronous spawn would stop its event loop for as long as the CLI runs (over
 * 5 s on a loaded machine); its keep-alive timer then fired late, after the client had already
 * written the next request on that connection, which was reset (ECONNRESET under load).
 */
export function cli(args: readonly string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 60_000 }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, out, err });
    });
  });
}
