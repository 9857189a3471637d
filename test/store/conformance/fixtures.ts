import { PROTOCOL_VERSION, type AttemptId, type Digest, type ReceiptBody, type TaskId } from '../../../src/protocol/index.js';
import type { Manifest } from '../../../src/registry/index.js';
import type { ClaimRequest, CommitRequest, Store } from '../../../src/store/index.js';
import type { ConformanceBackend } from './backend.js';

let n = 0;
/** A task id no other test uses. */
export const freshTask = (): TaskId => `conf-${process.pid}-${++n}-${Date.now().toString(36)}` as TaskId;

export function claimOf(task: TaskId, key: string, over: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    task_id: task,
    effect_key: key,
    logical_effect_id: null,
    idempotency_key: key,
    args_digest: 'sha256:aaaa' as Digest,
    tool: 'test.effect',
    tool_version: '1.0.0',
    attempt_id: 'att_conformance' as AttemptId,
    deadline: Date.now() + 60_000,
    safe_to_repeat: false,
    ...over,
  };
}

export function bodyOf(task: TaskId, over: Partial<Omit<ReceiptBody, 'prev_receipt_digest'>> = {}): CommitRequest['body'] {
  const now = new Date().toISOString();
  return {
    protocol_version: PROTOCOL_VERSION,
    task_id: task,
    attempt_id: 'att_conformance' as AttemptId,
    logical_effect_id: null,
    idempotency_key: null,
    tool: 'test.effect',
    tool_version: '1.0.0',
    registry_revision: null,
    status: 'succeeded',
    started_at: now,
    finished_at: now,
    queued_ms: 0,
    normalized_action: null,
    decision: null,
    result: { n: ++n },
    error: null,
    truncated: false,
    partial: null,
    evidence: {},
    artifacts: [],
    redactions: [],
    ...over,
  };
}

export function manifestOf(revision: string): Manifest {
  return { format: 'toolgate.registry.v1', revision: revision as Digest, tools: [] };
}

/** One fresh state per test, and every store opened on it closed at the end. */
export async function withState(backend: ConformanceBackend, run: (s: { ref: string; open: () => Promise<Store> }) => Promise<void>): Promise<void> {
  const ref = await backend.fresh();
  const opened: Store[] = [];
  try {
    await run({
      ref,
      open: async () => {
        const s = await backend.open(ref);
        opened.push(s);
        return s;
      },
    });
  } finally {
    for (const s of opened) await s.close();
    await backend.drop(ref);
  }
}
