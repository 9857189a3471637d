// Tools made for tests: each does one observable thing so a test can see whether and how
// often the pipeline let it run. They are real registry entries going through every stage.
import { appendFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, type AnyTool, type DeprecationState } from '../../src/registry/index.js';
import type { EffectClass } from '../../src/protocol/index.js';

export interface ProbeOptions {
  readonly name?: string;
  readonly version?: string;
  readonly effect_class?: EffectClass;
  readonly timeout_ms?: number;
  readonly idempotency?: 'safe_to_repeat' | 'reconcile';
  readonly deprecation?: DeprecationState;
  /** File (outside the workspace) where each execution appends a line: the effect's evidence. */
  readonly ledger: string;
  /** The first execution stalls this long before sending (a slow dependency that recovers). */
  readonly stallFirstMs?: number;
}

const probeArgs = z.strictObject({
  label: z.string(),
  /** Milliseconds to wait before sending (pre-effect work). */
  before_ms: z.number().int().min(0).default(0),
  /** Milliseconds to wait after sending (the effect in flight). */
  after_ms: z.number().int().min(0).default(0),
  /** Ignore the abort signal (a misbehaving tool). */
  stubborn: z.boolean().default(false),
  partial: z.boolean().default(false),
  /** Reconcile cannot tell whether this effect happened (a provider with no lookup). */
  unknown_on_reconcile: z.boolean().default(false),
});

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function ledgerLines(ledger: string): string[] {
  return existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * `test.effect`: waits `before_ms`, marks sent, appends `label` to the ledger, waits
 * `after_ms`, succeeds. Reconcile settles by looking for the label in the ledger.
 */
export function probeTool(o: ProbeOptions): AnyTool {
  let runs = 0;
  return defineTool({
    name: o.name ?? 'test.effect',
    version: o.version ?? '1.0.0',
    description: 'test probe',
    owner: 'tests',
    effect_class: o.effect_class ?? 'write',
    reversible: false,
    capabilities: [],
    args: probeArgs,
    result: z.strictObject({ label: z.string(), executions: z.number() }),
    timeout_ms: o.timeout_ms ?? 10_000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: o.idempotency ?? 'reconcile',
    ...(o.deprecation ? { deprecation: o.deprecation } : {}),
    normalize: () => ({ resources: [], prepared: undefined }),
    async execute(ctx) {
      const signal = ctx.args.stubborn ? null : ctx.signal;
      if (runs++ === 0 && o.stallFirstMs) await sleep(o.stallFirstMs, signal);
      await sleep(ctx.args.before_ms, signal);
      await ctx.markSent({ label: ctx.args.label, ...(ctx.args.unknown_on_reconcile ? { unknowable: true } : {}) });
      appendFileSync(o.ledger, ctx.args.label + '\n');
      await sleep(ctx.args.after_ms, signal);
      const executions = ledgerLines(o.ledger).filter((l) => l === ctx.args.label).length;
      if (ctx.args.partial) {
        return {
          status: 'failed',
          result: { label: ctx.args.label, executions },
          error: { code: 'partial_failure', message: 'second part failed', data: {} },
          partial: { applied: ['a'], unapplied: ['b'], restored: [] },
        };
      }
      return { status: 'succeeded', result: { label: ctx.args.label, executions } };
    },
    async reconcile(ctx) {
      // The label is in the recorded intent (arguments are not stored).
      const label = (ctx.intent as { label?: string } | null)?.label ?? (ctx.arguments as { label?: string } | null)?.label;
      if (label === undefined) return { settled: 'unknown', reason: 'no intent recorded' };
      if ((ctx.intent as { unknowable?: boolean } | null)?.unknowable) return { settled: 'unknown', reason: 'the probe cannot tell' };
      return ledgerLines(o.ledger).includes(label)
        ? { settled: 'completed', evidence: { ledger: join(o.ledger), label } }
        : { settled: 'released', evidence: { ledger: o.ledger } };
    },
  }) as unknown as AnyTool;
}
