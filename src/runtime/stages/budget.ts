import type { Usage } from '../../policy/index.js';
import type { Executed } from './execute.js';

const REPORTED = ['bytes_read', 'bytes_written', 'cpu_ms', 'cost'] as const;

/**
 * What a call actually used, settled against its task's budget at commit: one call, the
 * measured execution time, and what the tool reports in `evidence.usage`.
 */
export function usageOf(executed: Executed, wallMs: number): Usage {
  const reported = executed.evidence['usage'];
  const usage: { -readonly [K in keyof Usage]: number } = { calls: 1, wall_ms: Math.max(0, Math.round(wallMs)) };
  if (typeof reported === 'object' && reported !== null) {
    for (const d of REPORTED) {
      const v = (reported as Record<string, unknown>)[d];
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) usage[d] = Math.round(v);
    }
  }
  return usage;
}
