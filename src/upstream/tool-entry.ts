// One upstream tool as a registry entry: `UPSTREAM.tool`, its version from the manifest, its
// digest from what the upstream declared (description, schemas, annotations) and the manifest.
// Normalize names the manifest's resources; execute marks the effect sent, then calls the
// upstream under the call's signal (the SDK forwards an abort as notifications/cancelled).
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/client';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { ToolgateError, digestOf, failpoint, sha256Hex, type Resource } from '../protocol/index.js';
import { defineTool, failedOutcome, type AnyTool, type ReconcileVerdict, type ToolOutcome, anyTool } from '../registry/index.js';
import { effectClassOfManifest, namespaceOf, type ResourceArg, type ToolManifest, type UpstreamConfig } from './config.js';
import { sessionGone, type UpstreamConnection } from './connection.js';
import { reconcileCallOf, reconcileThrough, type UpstreamIntent } from './reconcile.js';

/** What an upstream tool returns through Toolgate. */
export interface UpstreamResult {
  readonly upstream: string;
  readonly tool: string;
  readonly content: readonly unknown[];
  readonly structured: unknown;
  readonly idempotency_key: string | null;
}

/** What the entry needs from the gateway while it runs. */
export interface EntryServices {
  readonly connection: UpstreamConnection;
  /** The digest of the tool as the upstream last listed it; null when it is gone. */
  currentDigest(tool: string): string | null;
  /** Closes the gateway (the runtime disposes every tool on close). */
  dispose(): Promise<void>;
}

const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * A registry name for an upstream tool: `UPSTREAM.tool`, lowercase, characters outside
 * [a-z0-9_-] as `_` (the MCP name is then `UPSTREAM_tool`). Two tools that map to one name:
 * the gateway admits the first.
 */
export function registryNameOf(upstream: string, tool: string): string {
  let n = tool.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  if (!/^[a-z]/.test(n)) n = `t${n}`;
  return `${upstream}.${n}`;
}

/** The digest of what the upstream declared and what the manifest says: any change is a new entry. */
export function declarationDigest(tool: Tool, manifest: ToolManifest | null): string {
  return digestOf({
    name: tool.name,
    description: tool.description ?? null,
    input_schema: tool.inputSchema,
    output_schema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
    manifest,
  });
}

/** The key Toolgate puts in the manifest's idempotency argument: one per task and logical effect. */
export function upstreamKeyOf(upstream: string, tool: string, task: string, idempotencyKey: string | null, logicalEffectId: string | null, attempt: string): string {
  const effect = idempotencyKey !== null ? `k:${idempotencyKey}` : logicalEffectId !== null ? `e:${logicalEffectId}` : `a:${attempt}`;
  return `tg-${sha256Hex(`toolgate/upstream/v1\0${upstream}\0${tool}\0${task}\0${effect}`).slice(0, 40)}`;
}

function argsSchemaOf(input: Tool['inputSchema']): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(input as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<Record<string, unknown>>;
  } catch {
    // A schema zod cannot express: the upstream validates its own arguments.
    return z.looseObject({});
  }
}

function resourceOf(system: string, r: ResourceArg, args: Record<string, unknown>, read: boolean): Resource | null {
  const raw = args[r.arg];
  if (raw === undefined || raw === null) {
    if (r.optional) return null;
    throw new ToolgateError('invalid_arguments', `argument ${r.arg} names the ${r.type} of this call and is missing`, { tool: `${system}`, faults: [{ pointer: `/${r.arg}`, message: `names a ${r.type}: required` }] });
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    throw new ToolgateError('invalid_resource', `argument ${r.arg} must name a ${r.type} as a string`, { kind: 'upstream_argument', path: r.arg });
  }
  let id = String(raw);
  for (const step of r.normalize) {
    if (step === 'trim') id = id.trim();
    else if (step === 'lowercase') id = id.toLowerCase();
    else id = id.replace(/\/+$/, '');
  }
  if (id.length === 0) throw new ToolgateError('invalid_resource', `argument ${r.arg} names an empty ${r.type}`, { kind: 'upstream_argument', path: r.arg });
  return { kind: 'resource', system, type: r.type, id, access: r.access ?? (read ? 'read' : 'write') };
}

/** Connection-level failures of a URL upstream's fetch: the request was never written. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function neverSent(e: unknown): boolean {
  if (e instanceof SdkError && (e.code === SdkErrorCode.NotConnected || sessionGone(e))) return true;
  // The new session after a 404 could not be opened: the request was refused unread.
  if (ToolgateError.isInstance(e) && e.code === 'upstream_unavailable') return true;
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' && NOT_CONNECTED.has(cause.code);
}

/** The registry entry of one upstream tool, manifested or admitted as unclassified. */
export function upstreamToolEntry(upstream: string, config: UpstreamConfig, tool: Tool, manifest: ToolManifest | null, s: EntryServices): AnyTool {
  const digest = declarationDigest(tool, manifest);
  const effect = manifest ? effectClassOfManifest(manifest.effect) : 'network';
  const read = effect === 'read';
  // The namespace, not the upstream: two upstreams serving two versions of one namespace are one system to Cedar.
  const namespace = namespaceOf(upstream, config);
  const name = registryNameOf(namespace, tool.name);
  const unavailable = (reason: 'tool_gone', message: string): ToolgateError<'upstream_unavailable'> =>
    new ToolgateError('upstream_unavailable', message, { upstream, tool: tool.name, reason, restarts: s.connection.restarts, message });
  const response = {
    type: 'object',
    properties: {
      upstream: { type: 'string' },
      tool: { type: 'string' },
      content: { type: 'array' },
      structured: tool.outputSchema ?? {},
      idempotency_key: { type: ['string', 'null'] },
    },
    required: ['upstream', 'tool', 'content', 'structured', 'idempotency_key'],
  };
  const def = defineTool<Record<string, unknown>, UpstreamResult, null>({
    name,
    version: manifest?.version ?? '1.0.0',
    description: tool.description ?? `${tool.name} (upstream ${upstream})`,
    owner: manifest ? `upstream:${upstream}` : `upstream:${upstream} (unclassified)`,
    effect_class: effect,
    reversible: read,
    capabilities: ['connector'],
    args: argsSchemaOf(tool.inputSchema),
    result: z.looseObject({}) as unknown as z.ZodType<UpstreamResult>,
    json_schemas: { request: tool.inputSchema, response },
    timeout_ms: config.call_timeout_ms,
    max_output_bytes: MAX_OUTPUT_BYTES,
    cancellation: 'cooperative',
    idempotency: read ? 'safe_to_repeat' : 'reconcile',
    implementation_digest: digest,
    normalize(args) {
      const current = s.currentDigest(tool.name);
      if (current === null) throw unavailable('tool_gone', `upstream ${upstream} no longer lists ${tool.name}`);
      if (current !== digest) {
        // The upstream changed and the registry has not taken the new listing yet: never call the
        // changed tool under the old entry's approvals.
        throw new ToolgateError('tool_version_unavailable', `${name} changed upstream since it was listed; call again`, {
          tool: name,
          version: manifest?.version ?? '1.0.0',
          reason: 'the upstream changed this tool since it was registered',
          registry_revision: digest,
          available: [],
        });
      }
      const resources = (manifest?.resources ?? []).map((r) => resourceOf(namespace, r, args, read)).filter((r): r is Resource => r !== null);
      return { resources, effect_class: effect, tool_digest: digest, approval_required: manifest === null || manifest.approval, prepared: null };
    },
    async execute(ctx): Promise<ToolOutcome<UpstreamResult>> {
      try {
        // Started (or restarted) before anything is marked sent: a server that cannot start took nothing.
        await s.connection.client();
      } catch (e) {
        if (ToolgateError.isInstance(e)) return failedOutcome(e.toBody());
        throw e;
      }
      const args: Record<string, unknown> = { ...ctx.args };
      let key: string | null = null;
      if (manifest?.idempotency_arg !== undefined) {
        key = upstreamKeyOf(upstream, tool.name, ctx.task_id, ctx.idempotency_key ?? null, ctx.logical_effect_id, ctx.attempt_id);
        args[manifest.idempotency_arg] = key;
      }
      if (!read) {
        const intent: UpstreamIntent = { upstream, tool: tool.name, idempotency_key: key, reconcile: manifest?.reconcile ? reconcileCallOf(manifest.reconcile, key, args) : null };
        await ctx.markSent(intent);
      }
      try {
        const r = await s.connection.request((c) =>
          c.callTool(
            { name: tool.name, arguments: args },
            // The SDK sends notifications/cancelled when the signal aborts (deadline, client or task cancel).
            { signal: ctx.signal, timeout: Math.max(1, ctx.deadline - Date.now()) + 5_000, toolDefinition: tool },
          ),
        );
        if (!read) failpoint('during_effect'); // the upstream answered: its effect taken, the answer not yet read
        const result: UpstreamResult = { upstream, tool: tool.name, content: r.content ?? [], structured: r.structuredContent ?? null, idempotency_key: key };
        const evidence = { upstream, tool: tool.name, tool_digest: digest, idempotency_key: key, is_error: r.isError === true };
        if (r.isError === true) {
          const text = (r.content ?? []).flatMap((c) => (c.type === 'text' ? [c.text.slice(0, 2000)] : []));
          return { status: 'failed', result, error: { code: 'execution_failed', message: `${upstream} ${tool.name} reported an error`, data: { reason: 'upstream_tool_error', notes: text } }, evidence };
        }
        return { status: 'succeeded', result, evidence };
      } catch (e) {
        // Deadline and cancellation are the runtime's to report (ambiguous when sent).
        ctx.signal.throwIfAborted();
        if (e instanceof ProtocolError) {
          // The upstream answered with a JSON-RPC error: it refused the request.
          return failedOutcome({ code: 'execution_failed', message: `${upstream} refused ${tool.name}: ${e.message}`, data: { reason: 'upstream_protocol_error', notes: [e.message] } });
        }
        // A read that lost its answer is simply unavailable. For anything else only a failure that
        // proves the request never left (no connection to a URL upstream) is; whatever else broke
        // after markSent (a stdio server that died, an HTTP stream cut mid-answer: fetch failed,
        // "other side closed") may have taken effect.
        if (read || neverSent(e)) {
          return failedOutcome({ code: 'upstream_unavailable', message: `upstream ${upstream} stopped during ${tool.name}: ${(e as Error).message}`, data: { upstream, tool: tool.name, reason: 'crashed', restarts: s.connection.restarts, message: (e as Error).message } });
        }
        return {
          status: 'ambiguous',
          result: null,
          error: { code: 'ambiguous_effect', message: `upstream ${upstream} stopped after ${tool.name} was sent (${(e as Error).message}); reconcile before retrying`, data: { reason: 'upstream_stopped', tool_stopped: true } },
          evidence: { upstream, tool: tool.name, tool_digest: digest, idempotency_key: key },
        };
      }
    },
    reconcile: async (ctx): Promise<ReconcileVerdict> => {
      if (read) return { settled: 'released', evidence: { upstream, tool: tool.name, reason: 'a read' } };
      return reconcileThrough(s.connection, ctx.intent);
    },
    dispose: () => s.dispose(),
  });
  return anyTool(def);
}
