// One MCP server instance over a runtime: tools/list from the registry, tools/call through
// runtime.call with the request's AbortSignal, progress forwarded when the client asked for it.
import { Server } from '@modelcontextprotocol/server';
import { PROTOCOL_VERSION, TOOLGATE_VERSION, type Receipt } from '../protocol/index.js';
import type { CallOptions, Runtime } from '../runtime/index.js';
import { callResultOf, DEFAULT_RESULT_SHAPING, type ResultShaping } from './call-result.js';
import type { ToolListing } from './tool-listing.js';
import { profileCallResult, profileToolDefinitions } from './profile-tools.js';
import { formFor, resultFor, toolsFor, type FormedResult, type ResultForm } from './result-form.js';
import { McpTasks } from './mcp-tasks.js';
import { ApprovalAsking, callAskingApproval, type ApprovalAskingOptions } from './approval-elicit.js';

export interface McpSession {
  /** Every call of this session belongs to this task (DESIGN: one MCP session is one task). */
  readonly taskId: string;
  /** Approval questions shared by the server instances of one serving (else one per instance). */
  readonly asking?: ApprovalAsking;
}

export interface McpServerOptions extends ApprovalAskingOptions {
  readonly name?: string;
  readonly version?: string;
  readonly resultShaping?: ResultShaping;
  /** Which half of a result carries it (result-form.ts); default `auto`. */
  readonly resultForm?: ResultForm;
}

/** Optional request `_meta` keys a client may send to reach envelope fields MCP has no place for. */
const META_ENVELOPE_FIELDS = {
  'toolgate/idempotency_key': 'idempotency_key',
  'toolgate/logical_effect_id': 'logical_effect_id',
  'toolgate/deadline': 'deadline',
  'toolgate/tool_version': 'tool_version',
} as const;

function envelopeFieldsOf(meta: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(META_ENVELOPE_FIELDS)) {
    if (meta[key] !== undefined) out[field] = meta[key];
  }
  return out;
}

/**
 * The ledger's latest signed checkpoint in the result's `_meta`, covering the call's receipt: a
 * client that keeps it can prove later that the database lost or rewrote receipts (docs/audit.md).
 */
function withCheckpoint<R extends { readonly _meta: Record<string, unknown> }>(result: R, rt: Runtime): R {
  const status = rt.checkpoint();
  if (status === null) return result;
  return { ...result, _meta: { ...result._meta, 'toolgate/checkpoint': 'diverged' in status ? { diverged: status.diverged } : status.checkpoint } };
}

export function createMcpServer(rt: Runtime, listing: ToolListing, session: McpSession, opts: McpServerOptions = {}): Server {
  const server = new Server({ name: opts.name ?? 'toolgate', version: opts.version ?? TOOLGATE_VERSION }, { capabilities: { tools: {} } });
  const shaping = opts.resultShaping ?? DEFAULT_RESULT_SHAPING;
  const asking = session.asking ?? new ApprovalAsking(rt, opts);

  const profile = rt.profile;
  if (profile !== null) {
    // A profile replaces the native surface (docs/profiles.md): its tools only, in its own words.
    const tools = profileToolDefinitions(profile);
    server.setRequestHandler('tools/list', () => ({ tools }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const meta: Readonly<Record<string, unknown>> = ctx.mcpReq._meta ?? {};
      const fields = envelopeFieldsOf(meta);
      const answer = await profile.call(request.params.name, request.params.arguments ?? {}, {
        task_id: session.taskId,
        signal: ctx.mcpReq.signal,
        ...(typeof fields['deadline'] === 'string' ? { deadline: fields['deadline'] } : {}),
        ...(typeof fields['idempotency_key'] === 'string' ? { idempotency_key: fields['idempotency_key'] } : {}),
      });
      return withCheckpoint(profileCallResult(answer, profile.profile.name), rt);
    });
    return server;
  }

  // Resolved per connection, once the client said who it is (initialize comes first).
  const form = (): ReturnType<typeof formFor> => formFor(opts.resultForm ?? 'auto', server.getClientVersion()?.name);
  // Long calls may run as MCP tasks (2025-11-25; docs/mcp.md#long-calls).
  const tasks = new McpTasks(server);
  tasks.install();
  server.setRequestHandler('tools/list', () => ({ tools: tasks.listed(toolsFor(form(), listing.tools), (n) => listing.registryName(n)) }));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const meta: Readonly<Record<string, unknown>> = ctx.mcpReq._meta ?? {};
    const envelope = {
      ...envelopeFieldsOf(meta),
      protocol_version: PROTOCOL_VERSION,
      task_id: session.taskId,
      tool: listing.registryName(request.params.name),
      arguments: request.params.arguments ?? {},
    };
    const raw = meta['progressToken'];
    const token = typeof raw === 'string' || typeof raw === 'number' ? raw : undefined;
    const args = request.params.arguments ?? {};
    const shape = (receipt: Receipt): FormedResult => {
      const f = form();
      // Text alone carries the result: a result without its own rendering is sent whole as JSON, not summarised.
      const textShaping = f === 'text' ? { ...shaping, textCopyLimitBytes: shaping.maxResultBytes } : shaping;
      return withCheckpoint(resultFor(f, callResultOf(receipt, textShaping, { args, undoable: listing.undoable(envelope.tool), successText: f === 'structured' ? 'line' : 'full' })), rt);
    };
    const task = request.params.task;
    if (task !== undefined && tasks.offered()) {
      // Answered at once with the task; the call runs on under the task's own cancel. An approval
      // it needs is not asked in the task: its receipt says approval_required (out of band).
      const runTask = async (o: CallOptions): Promise<FormedResult> => shape(await rt.call(envelope, o));
      return tasks.create(envelope.tool, task.ttl, token, ({ cancel, onProgress }) => runTask({ cancel, ...(onProgress ? { onProgress } : {}) })) as never;
    }
    const run = (): Promise<Receipt> => rt.call(envelope, {
      signal: ctx.mcpReq.signal,
      // A client whose request timed out may re-issue it with the same key and attach.
      detach: true,
      ...(token !== undefined
        ? {
            onProgress: (p: { progress: number; total?: number; message?: string }) => {
              // Progress is advisory: a client that went away must not fail the call.
              ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => {});
            },
          }
        : {}),
    });
    // A call that needs an approval may ask the person through the client (approval-elicit.ts).
    const outcome = await callAskingApproval({ rt, server, ctx, asking, taskId: session.taskId, tool: envelope.tool, args, run });
    if ('inputRequired' in outcome) return outcome.inputRequired;
    return shape(outcome.receipt);
  });
  return server;
}
