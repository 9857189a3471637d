import type { NormalizedAction } from '../../protocol/index.js';
import type { Usage } from '../../policy/index.js';
import type { Executed } from './execute.js';

const REPORTED = ['bytes_read', 'bytes_written', 'cpu_ms', 'cost'] as const;

/**
 * What a call is reserved at admission: one call, and a zero estimate for every dimension it
 * may use, so that a dimension already used up refuses it. Only calls that change something
 * are refused for written bytes.
 */
export function estimateOf(action: NormalizedAction): Usage {
  const writes = action.effect_class !== 'read' || action.resources.some((r) => r.kind === 'path' && r.access !== 'read' && r.access !== 'execute');
  return { calls: 1, bytes_read: 0, wall_ms: 0, cpu_ms: 0, cost: 0, ...(writes ? { bytes_written: 0 } : {}) };
}

function writtenBytes(evidence: Readonly<Record<string, unknown>>): number {
  const changes = evidence['changes'];
  if (!Array.isArray(changes)) return 0;
  let total = 0;
  for (const c of changes as unknown[]) {
    const after = (c as { op?: unknown; after?: { size?: unknown } | null }).after;
    if ((c as { op?: unknown }).op === 'file' && typeof after?.size === 'number') total += after.size;
  }
  return total;
}

/**
 * What a call actually used, settled against its task's budget at commit: one call and the
 * measured execution time; bytes, CPU and cost as the tool reports them in `evidence.usage`.
 * When it does not: bytes written are the sizes of the files its evidence says it wrote, and
 * bytes read (for a read) the size of the result handed back.
 */
export function usageOf(action: NormalizedAction, executed: Executed, wallMs: number): Usage {
  const usage: { -readonly [K in keyof Usage]: number } = { calls: 1, wall_ms: Math.max(0, Math.round(wallMs)) };
  const written = writtenBytes(executed.evidence);
  if (written > 0) usage.bytes_written = written;
  if (action.effect_class === 'read' && executed.result !== null) usage.bytes_read = Buffer.byteLength(JSON.stringify(executed.result));
  const reported = executed.evidence['usage'];
  if (typeof reported === 'object' && reported !== null) {
    for (const d of REPORTED) {
      const v = (reported as Record<string, unknown>)[d];
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) usage[d] = Math.round(v);
    }
  }
  return usage;
}
