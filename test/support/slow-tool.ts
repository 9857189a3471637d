// `test.slow`: reports progress every 50 ms for `ms` milliseconds, then succeeds. Each phase is
// appended to a ledger outside the workspace, so a test can see that a cancelled run stopped.
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/registry/index.js';

export function slowTool(ledger: string): AnyTool {
  return defineTool({
    name: 'test.slow',
    version: '1.0.0',
    description: 'Waits, reporting progress; for cancellation and progress tests',
    owner: 'tests',
    effect_class: 'read',
    reversible: true,
    capabilities: [],
    args: z.strictObject({ label: z.string(), ms: z.number().int().min(0).max(60_000) }),
    result: z.strictObject({ label: z.string(), ticks: z.number().int() }),
    timeout_ms: 60_000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: (ctx) =>
      new Promise((resolve) => {
        const { label, ms } = ctx.args;
        appendFileSync(ledger, `start ${label}\n`);
        let ticks = 0;
        const steps = Math.max(1, Math.ceil(ms / 50));
        const finish = (): void => {
          clearInterval(tick);
          clearTimeout(done);
          ctx.signal.removeEventListener('abort', onAbort);
        };
        const tick = setInterval(() => {
          ticks++;
          ctx.progress({ progress: ticks, total: steps, message: `tick ${ticks}` });
        }, 50);
        const done = setTimeout(() => {
          finish();
          appendFileSync(ledger, `end ${label}\n`);
          resolve({ status: 'succeeded', result: { label, ticks } });
        }, ms);
        const onAbort = (): void => {
          finish();
          appendFileSync(ledger, `abort ${label}\n`);
          resolve({ status: 'cancelled', result: null, error: { code: 'cancelled', message: 'stopped on abort', data: {} } });
        };
        ctx.signal.addEventListener('abort', onAbort, { once: true });
      }),
  }) as unknown as AnyTool;
}
