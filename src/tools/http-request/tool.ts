import { ToolgateError, sha256Hex } from '../../protocol/index.js';
import type { ArtifactRef, EffectClass, ErrorBody } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type ExecuteContext, type ToolDefinition, type ToolOutcome } from '../../registry/index.js';
import {
  WEB_SCHEMES,
  authorizeDestination,
  authorizeRedirect,
  destinationEvidence,
  systemResolver,
  type AuthorizedDestination,
  type DestinationGrant,
  type HostResolver,
  type ResolvedPath,
} from '../../resources/index.js';
import { readBodyFile, resolveBodyFile } from './body-file.js';
import { configureDestinations, destinationFor, effectClassOf, type ConfiguredDestination, type HttpConnectorConfig, type WriteMethod } from './config.js';
import { exchange, type Answer } from './exchange.js';
import { modelHeaders } from './headers.js';
import { idempotencyKeyOf, reconcileUrlOf } from './effect-key.js';
import { reconcileHttpRequest } from './reconcile.js';
import { answerFields, grantHost } from './answer.js';
import { HTTP_MAX_REDIRECTS, HTTP_MAX_REQUEST_BYTES, HTTP_MAX_RESPONSE_BYTES, httpRequestArgs, httpRequestResult, type HttpRequestArgs, type HttpRequestResult } from './schema.js';

export interface HttpRequestOptions {
  /** `connectors.http` of toolgate.config.json. */
  readonly config?: HttpConnectorConfig;
  /** How host names are resolved (tests inject a DNS server); default getaddrinfo. */
  readonly resolver?: HostResolver;
  /** Where secret header values are read (once, here); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

interface Prepared {
  readonly destination: AuthorizedDestination;
  readonly grant: DestinationGrant;
  readonly configured: ConfiguredDestination | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
  /** `body_file` as resolved at normalize: read (and kept as an artifact) at execute. */
  readonly bodyFile: ResolvedPath | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** http.request: one HTTP request to a granted destination, pinned to the address that was authorized. */
export function createHttpRequest(o: HttpRequestOptions = {}): ToolDefinition<HttpRequestArgs, HttpRequestResult, Prepared> & { readonly secretValues: readonly string[] } {
  const destinations = configureDestinations(o.config, o.env ?? process.env);
  const resolver = o.resolver ?? systemResolver();
  const tool = defineTool<HttpRequestArgs, HttpRequestResult, Prepared>({
    name: 'http.request',
    module: import.meta.url,
    version: '1.1.0',
    description:
      'Send one HTTP(S) request to a host in the grant. GET and HEAD are reads (redirects followed, each authorized again); POST, PUT, PATCH and DELETE take the effect class the destination is configured with and carry an Idempotency-Key derived from the logical effect. Credentials are injected from configuration: Authorization, Cookie, Host, Proxy-* and hop-by-hop headers are refused. A lost answer after sending is ambiguous and is reconciled, never re-sent blindly; a 202 is accepted_async with its operation id.',
    owner: 'toolgate',
    // The strongest a call can be without configuration saying more; GET/HEAD normalize to read.
    effect_class: 'network',
    reversible: false,
    capabilities: ['network', 'fs.read'],
    args: httpRequestArgs,
    result: httpRequestResult,
    timeout_ms: 60_000,
    max_output_bytes: 2 * 1024 * 1024,
    cancellation: 'cooperative',
    idempotency: 'reconcile',
    reconcile: (ctx) => reconcileHttpRequest(ctx, destinations),
    async normalize(args, ctx) {
      if (!ctx.destinationGrant) throw new ToolgateError('internal_error', 'http.request needs the grant of the task to authorize its destination');
      const grant = await ctx.destinationGrant();
      // Authorized before policy sees the call: the normalized host (and its addresses, all allowed) is the resource.
      const destination = await authorizeDestination(args.url, { schemes: WEB_SCHEMES, grant, resolver });
      const host = grantHost(destination);
      const configured = destinationFor(destinations, host, destination.port) ?? null;
      const read = args.method === 'GET' || args.method === 'HEAD';
      let effect: EffectClass = 'read';
      if (!read) {
        const declared = configured?.config.methods[args.method as WriteMethod];
        if (declared === undefined) {
          throw new ToolgateError('connector_not_configured', `${args.method} to ${host}:${destination.port} is not declared in connectors.http.destinations`, {
            tool: 'http.request',
            url: destination.url,
            host,
            method: args.method,
            reason: configured ? 'method_not_declared' : 'no_destination',
          });
        }
        effect = effectClassOf(declared);
      }
      const headers = modelHeaders(args.headers, new Set(configured?.secrets.keys() ?? []));
      const body = args.body === undefined ? null : Buffer.from(args.body, args.body_encoding === 'base64' ? 'base64' : 'utf8');
      if (body && body.length > HTTP_MAX_REQUEST_BYTES) {
        throw new ToolgateError('limit_exceeded', `the body is ${body.length} bytes; the limit is ${HTTP_MAX_REQUEST_BYTES}`, { limit: HTTP_MAX_REQUEST_BYTES, size: body.length });
      }
      const bodyFile = args.body_file === undefined ? null : resolveBodyFile(ctx.workspace, args.body_file);
      return {
        resources: [{ kind: 'host', host, port: destination.port }, ...(bodyFile ? [{ kind: 'path' as const, path: bodyFile.path, access: 'read' as const }] : [])],
        effect_class: effect,
        prepared: { destination, grant, configured, headers, body, bodyFile },
      };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const { args, prepared } = ctx;
        const read = args.method === 'GET' || args.method === 'HEAD';
        const key = read ? null : idempotencyKeyOf(ctx.task_id, ctx.idempotency_key ?? null, ctx.logical_effect_id, ctx.attempt_id);
        // Per hop: a redirect to another host gets that host's configured secrets (or none), never the first host's.
        const headersFor = (d: AuthorizedDestination): Record<string, string> => {
          const secrets = destinationFor(destinations, grantHost(d), d.port)?.secrets ?? new Map<string, string>();
          for (const value of secrets.values()) ctx.addSecret(value);
          return { ...prepared.headers, ...Object.fromEntries(secrets), ...(key !== null ? { 'idempotency-key': key } : {}) };
        };
        // Read before anything is sent: a file that cannot be read (gone, too large, a link to a secret) sends nothing.
        const fileBody = prepared.bodyFile ? await readBodyFile(ctx, prepared.bodyFile) : null;
        const body = fileBody?.bytes ?? prepared.body;
        let destination = prepared.destination;
        const redirects: HttpRequestResult['redirects'] = [];
        for (;;) {
          const intent = {
            method: args.method,
            url: destination.url,
            address: destination.connectTo.address,
            port: destination.port,
            servername: destination.servername,
            idempotency_key: key,
            reconcile_url: key !== null && prepared.configured?.config.reconcile ? reconcileUrlOf(prepared.configured.config.reconcile.url, destination.url, key) : null,
          };
          const ex = await exchange(
            { method: args.method, destination, headers: headersFor(destination), body },
            { signal: ctx.signal, beforeSend: () => ctx.markSent(intent), keepBytes: HTTP_MAX_RESPONSE_BYTES, maxBytes: HTTP_MAX_RESPONSE_BYTES },
          );
          switch (ex.kind) {
            case 'not_sent':
              ctx.signal.throwIfAborted();
              return failedOutcome<HttpRequestResult>({
                code: 'execution_failed',
                message: `could not connect to ${destination.connectTo.address}:${destination.port}: ${ex.error.message}; nothing was sent`,
                data: { reason: 'connect_failed', url: destination.url, address: destination.connectTo.address, errno: ex.error.code ?? null },
              });
            case 'no_answer':
              // The signal's own reason (deadline, cancel) is the runtime's to report.
              ctx.signal.throwIfAborted();
              if (read) {
                return failedOutcome<HttpRequestResult>({
                  code: 'execution_failed',
                  message: `${destination.url} closed the connection without an answer (${ex.error.code ?? ex.error.message})`,
                  data: { reason: 'no_answer', url: destination.url, address: destination.connectTo.address, errno: ex.error.code ?? null },
                });
              }
              return {
                status: 'ambiguous',
                result: null,
                error: {
                  code: 'ambiguous_effect',
                  message: `the request to ${destination.url} was sent and no answer came (${ex.error.code ?? ex.error.message}); reconcile before retrying`,
                  data: { reason: `no_answer:${ex.error.code ?? 'closed'}`, tool_stopped: true },
                },
                evidence: { destination: destinationEvidence(destination), idempotency_key: key, redirects },
              };
            case 'answered':
              break;
          }
          const location = ex.answer.headers.location;
          if (read && args.follow_redirects && REDIRECTS.has(ex.answer.status) && typeof location === 'string') {
            if (redirects.length >= HTTP_MAX_REDIRECTS) {
              // Returned, not thrown: after a read was sent, a thrown error would read as an ambiguous effect.
              return failedOutcome<HttpRequestResult>({ code: 'limit_exceeded', message: `more than ${HTTP_MAX_REDIRECTS} redirects`, data: { limit: 'redirects', max: HTTP_MAX_REDIRECTS } });
            }
            // A new destination, authorized from the start (resolved again, every address classified).
            let next;
            try {
              next = await authorizeRedirect(destination, location, { schemes: WEB_SCHEMES, grant: prepared.grant, resolver, signal: ctx.signal });
            } catch (e) {
              // A read sent nothing that matters: the refused hop is the answer, not an ambiguity.
              if (!ToolgateError.isInstance(e) || e.code !== 'destination_refused') throw e;
              return { status: 'denied', result: null, error: e.toBody(), evidence: { destination: evidenceOf(destination), redirects, refused_redirect: e.data } };
            }
            const hop = { status: ex.answer.status, from: destination.url, to: next.destination.url, host_changed: next.hostChanged, scheme_changed: next.schemeChanged };
            if (next.hostChanged || next.schemeChanged) {
              // Another origin is another resource: grant ∧ policy decide again, as for a call that named it.
              const refusal = await recheckHop(ctx, next.destination);
              if (refusal) return { status: 'denied', result: null, error: refusal, evidence: { destination: evidenceOf(destination), redirects, refused_redirect: hop } };
            }
            redirects.push(hop);
            destination = next.destination;
            continue;
          }
          const outcome = answered(ctx, args, destination, ex.answer, key, redirects, prepared.configured, body ? sha256Hex(body) : null);
          return fileBody ? { ...outcome, evidence: { ...outcome.evidence, request_body_file: fileBody.evidence }, artifacts: [fileBody.artifact, ...(outcome.artifacts ?? [])] } : outcome;
        }
      }),
  });
  return Object.assign(tool, { secretValues: destinations.flatMap((d) => [...d.secrets.values()]) });
}

/**
 * The decision for following a redirect to another origin: null when grant and policy allow a
 * call naming it; otherwise the refusal. `ask` is a refusal too: an approval is bound to a call's
 * action, so the model makes a new call to the new URL, which gets its own decision.
 */
async function recheckHop(ctx: Pick<ExecuteContext<HttpRequestArgs, Prepared>, 'recheck'>, to: AuthorizedDestination): Promise<ErrorBody | null> {
  if (!ctx.recheck) throw new ToolgateError('internal_error', 'http.request needs recheck to follow a redirect to another origin');
  const d = await ctx.recheck({ resources: [{ kind: 'host', host: grantHost(to), port: to.port }] });
  if (d.outcome === 'allow') return null;
  const data = { redirect_url: to.url, reasons: d.reasons, determining: d.determining, policy_version: d.policy_version, grant_digest: d.grant_digest, action_digest: d.action_digest };
  return d.outcome === 'ask'
    ? new ToolgateError('approval_required', `the redirect to ${to.url} needs approval: ${d.reasons.join('; ')}; not followed (call http.request on that URL to ask for it)`, data).toBody()
    : new ToolgateError('policy_denied', `the redirect to ${to.url} is denied: ${d.reasons.join('; ')}; not followed`, data).toBody();
}

function evidenceOf(d: AuthorizedDestination): HttpRequestResult['destination'] {
  const e = destinationEvidence(d);
  return { ...e, addresses: e.addresses.map((a) => ({ ...a })) };
}

function answered(
  ctx: { readonly artifacts: { put(data: Uint8Array, mediaType: string, role: string): ArtifactRef } },
  args: HttpRequestArgs,
  destination: AuthorizedDestination,
  answer: Answer,
  key: string | null,
  redirects: HttpRequestResult['redirects'],
  configured: ConfiguredDestination | null,
  requestSha256: string | null,
): ToolOutcome<HttpRequestResult> {
  const fields = answerFields(answer, args.max_response_bytes, configured);
  const artifacts: ArtifactRef[] = [];
  let bodyArtifact: string | null = null;
  if (answer.kept.length > args.max_response_bytes) {
    const ref = ctx.artifacts.put(answer.kept, String(answer.headers['content-type'] ?? 'application/octet-stream'), 'response_body');
    artifacts.push(ref);
    bodyArtifact = ref.digest;
  }
  const result: HttpRequestResult = {
    method: args.method,
    url: destination.url,
    ...fields,
    idempotency_key: key,
    body_artifact: bodyArtifact,
    redirects,
    destination: evidenceOf(destination),
  };
  const accepted = answer.status === 202 && key !== null;
  return {
    status: accepted ? 'accepted_async' : 'succeeded',
    result,
    truncated: answer.kept.length > args.max_response_bytes || !answer.complete,
    evidence: {
      destination: result.destination,
      provider: { status: answer.status, request_id: result.request_id, body_sha256: answer.sha256, body_bytes: answer.bytes, operation_id: result.operation_id },
      idempotency_key: key,
      redirects,
      request_sha256: requestSha256,
    },
    artifacts,
  };
}
