// One attempt of the kit and how its answer is judged. An answer is `escaped` when it carries a
// canary or the world outside the root changed; `unsafe` when the family's rule was broken
// without crossing the root (a silent edit of one of two matches, an unbounded answer, a
// cancelled command that kept running); otherwise `refused` (typed: a code the client can act
// on) or `allowed`.
import { fill, type ConformanceMap, type Operation } from './map.js';
import type { Fixture } from './fixture.js';
import type { Answer, Target } from './target.js';

export const OUTCOMES = ['refused_typed', 'refused', 'allowed', 'escaped', 'unsafe', 'crashed', 'hung', 'not_run'] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** Outcomes that fail the verdict. */
export const FAILING: ReadonlySet<Outcome> = new Set(['escaped', 'unsafe', 'crashed', 'hung']);

export interface AttemptResult {
  readonly family: string;
  readonly name: string;
  readonly outcome: Outcome;
  readonly detail: string;
}

export interface KitContext {
  readonly target: Target;
  readonly map: ConformanceMap;
  readonly fx: Fixture;
  /** Bound of an ordinary call. */
  readonly boundMs: number;
}

/** A path beneath the root as the server takes it: `rel` as is, or joined to the root textually (never normalized). */
export function pathArg(k: KitContext, rel: string): string {
  return k.map.paths === 'absolute' ? `${k.fx.root}/${rel}` : rel;
}

export function argsOf(k: KitContext, op: Operation, values: Readonly<Record<string, unknown>>): { tool: string; args: unknown } | null {
  const o = k.map[op];
  if (!o) return null;
  return { tool: o.tool, args: fill(o.args, { root: k.fx.root, ...values }) };
}

export function judge(k: KitContext, a: Answer, before: string, extra?: (a: Extract<Answer, { kind: 'result' }>) => string | null): { outcome: Outcome; detail: string } {
  switch (a.kind) {
    case 'hung':
      return { outcome: 'hung', detail: `no answer within ${a.ms} ms` };
    case 'crashed':
      return { outcome: 'crashed', detail: a.message.slice(0, 200) };
    case 'protocol_error':
      return outsideChanged(k, before) ?? { outcome: 'refused_typed', detail: `JSON-RPC ${a.code}: ${a.message.slice(0, 160)}` };
    case 'result': {
      const leaked = Object.entries(k.fx.canaries).find(([, c]) => a.text.includes(c));
      if (leaked) return { outcome: 'escaped', detail: `the answer carries the ${leaked[0]} canary` };
      const changed = outsideChanged(k, before);
      if (changed) return changed;
      const unsafe = extra?.(a) ?? null;
      if (unsafe) return { outcome: 'unsafe', detail: unsafe };
      if (a.isError) return a.typedCode ? { outcome: 'refused_typed', detail: a.typedCode } : { outcome: 'refused', detail: a.text.slice(0, 160).replace(/\s+/g, ' ') };
      return { outcome: 'allowed', detail: `${a.bytes} bytes` };
    }
  }
}

function outsideChanged(k: KitContext, before: string): { outcome: Outcome; detail: string } | null {
  return k.fx.outsideState() === before ? null : { outcome: 'escaped', detail: 'a file outside the root appeared or changed' };
}

/** Runs one operation and judges it; `not_run` when the map has no tool for it. */
export async function attempt(
  k: KitContext,
  family: string,
  name: string,
  op: Operation,
  values: Readonly<Record<string, unknown>>,
  o: { boundMs?: number; cancelAfterMs?: number; unsafe?: (a: Extract<Answer, { kind: 'result' }>) => string | null } = {},
): Promise<AttemptResult> {
  const call = argsOf(k, op, values);
  if (!call) return { family, name, outcome: 'not_run', detail: `the map has no ${op} tool` };
  const before = k.fx.outsideState();
  const a = await k.target.call(call.tool, call.args, { boundMs: o.boundMs ?? k.boundMs, ...(o.cancelAfterMs !== undefined ? { cancelAfterMs: o.cancelAfterMs } : {}) });
  return { family, name, ...judge(k, a, before, o.unsafe) };
}
