// After an upstream call that may have taken effect with no answer (a timeout, the server died):
// ask the upstream, through the read tool the manifest names, whether the effect is there.
// Never a second send of the write itself.
import type { EffectIntent, ReconcileVerdict } from '../registry/index.js';
import type { ToolManifest } from './config.js';
import type { UpstreamConnection } from './connection.js';

/** The reconcile tool and its arguments, filled at send (so an operator's reconcile needs no arguments). */
export interface ReconcileCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly found: { readonly pointer: string; readonly equals?: unknown };
}

/** What execute records at markSent: enough to look the effect up, no other argument values. */
export interface UpstreamIntent extends EffectIntent {
  readonly upstream: string;
  readonly tool: string;
  readonly idempotency_key: string | null;
  readonly reconcile: ReconcileCall | null;
}

const RECONCILE_TIMEOUT_MS = 15_000;

/** `{idempotency_key}` and `{args.NAME}` filled in; other values as written. */
export function reconcileCallOf(r: NonNullable<ToolManifest['reconcile']>, key: string | null, args: Readonly<Record<string, unknown>>): ReconcileCall {
  const filled: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.arguments)) {
    if (v === '{idempotency_key}') filled[k] = key;
    else if (typeof v === 'string' && /^\{args\.[^}]+\}$/.test(v)) filled[k] = args[v.slice(6, -1)] ?? null;
    else filled[k] = v;
  }
  return { tool: r.tool, arguments: filled, found: r.found.equals === undefined ? { pointer: r.found.pointer } : { pointer: r.found.pointer, equals: r.found.equals } };
}

function intentOf(raw: unknown): UpstreamIntent | null {
  if (raw === null || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (typeof r['upstream'] !== 'string' || typeof r['tool'] !== 'string') return null;
  return raw as UpstreamIntent;
}

/** RFC 6901 pointer into plain JSON. */
function at(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let cur: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (cur !== null && typeof cur === 'object') cur = (cur as Record<string, unknown>)[key];
    else return undefined;
  }
  return cur;
}

function truthy(v: unknown): boolean {
  return !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0));
}

/** The answer as JSON: structuredContent, else the first text content parsed. */
function answerOf(r: { structuredContent?: unknown; content?: readonly unknown[] }): unknown {
  if (r.structuredContent !== undefined) return r.structuredContent;
  for (const c of r.content ?? []) {
    const block = c as { type?: string; text?: string };
    if (block.type === 'text' && typeof block.text === 'string') {
      try {
        return JSON.parse(block.text);
      } catch {
        return block.text;
      }
    }
  }
  return null;
}

export async function reconcileThrough(connection: UpstreamConnection, raw: EffectIntent | null): Promise<ReconcileVerdict> {
  const intent = intentOf(raw);
  if (intent === null) return { settled: 'unknown', reason: 'no intent was recorded for this upstream call' };
  const r = intent.reconcile;
  if (r === null) return { settled: 'unknown', reason: `the manifest of ${intent.upstream} ${intent.tool} names no reconcile tool: settle it by hand (toolgate reconcile KEY --settle …)` };
  let answer;
  try {
    answer = await connection.request((client) => client.callTool({ name: r.tool, arguments: { ...r.arguments } }, { signal: AbortSignal.timeout(RECONCILE_TIMEOUT_MS), timeout: RECONCILE_TIMEOUT_MS }));
  } catch (e) {
    return { settled: 'unknown', reason: `the reconcile tool ${intent.upstream} ${r.tool} did not answer: ${(e as Error).message}` };
  }
  if (answer.isError === true) return { settled: 'unknown', reason: `the reconcile tool ${intent.upstream} ${r.tool} reported an error` };
  const json = answerOf(answer);
  const value = at(json, r.found.pointer);
  const found = r.found.equals === undefined ? truthy(value) : JSON.stringify(value) === JSON.stringify(r.found.equals);
  const evidence = { upstream: intent.upstream, tool: intent.tool, idempotency_key: intent.idempotency_key, reconcile: { tool: r.tool, pointer: r.found.pointer, value: value ?? null } };
  if (found) return { settled: 'completed', evidence, result: { upstream: intent.upstream, tool: intent.tool, content: answer.content ?? [], structured: json, idempotency_key: intent.idempotency_key } };
  return { settled: 'released', evidence };
}
