// What the web view shows, read from the store through the runtime's own APIs (the same ones
// `toolgate receipts`, `approvals`, `reconcile --list` and `audit verify` use). Read-only: nothing
// here writes. Receipts are stored redacted, so nothing secret reaches a page.
import type { ApprovalState } from '../policy/index.js';
import type { Receipt, TaskId } from '../protocol/index.js';
import type { Runtime, UnsettledEntry } from '../runtime/index.js';

/** How many receipts the overview reads to list tasks and denials (the newest ones). */
export const OVERVIEW_RECEIPTS = 2_000;
/** How many receipts one task's timeline shows (the newest ones, oldest first). */
export const TIMELINE_RECEIPTS = 500;

export interface TaskSummary {
  readonly task_id: string;
  readonly receipts: number;
  readonly first_at: string;
  readonly last_at: string;
  readonly statuses: Readonly<Record<string, number>>;
}

/** Denials of one action in one task: a count above one is a repeated denial. */
export interface DenialGroup {
  readonly task_id: string;
  readonly tool: string;
  readonly action_digest: string | null;
  readonly count: number;
  /** Refused as `repeated_denial` at least once (the policy's repeated-denial limit was passed). */
  readonly repeated: boolean;
  readonly codes: readonly string[];
  readonly reasons: readonly string[];
  readonly last_at: string;
  readonly last_receipt_id: string;
}

export interface Overview {
  readonly now: string;
  readonly tasks: readonly TaskSummary[];
  /** Pending and unexpired, each with the action digest a decision must carry back. */
  readonly approvals: readonly ApprovalState[];
  readonly denials: readonly DenialGroup[];
  readonly unsettled: readonly UnsettledEntry[];
}

export type AuditView = Awaited<ReturnType<Runtime['store']['verifyChain']>> & { readonly checked_at: string };

function tasksOf(receipts: readonly Receipt[]): TaskSummary[] {
  const byTask = new Map<string, { receipts: number; first_at: string; last_at: string; statuses: Record<string, number> }>();
  for (const r of receipts) {
    const t = byTask.get(r.task_id) ?? { receipts: 0, first_at: r.started_at, last_at: r.finished_at, statuses: {} };
    t.receipts++;
    if (r.started_at < t.first_at) t.first_at = r.started_at;
    if (r.finished_at > t.last_at) t.last_at = r.finished_at;
    t.statuses[r.status] = (t.statuses[r.status] ?? 0) + 1;
    byTask.set(r.task_id, t);
  }
  return [...byTask].map(([task_id, t]) => ({ task_id, ...t })).sort((a, b) => (a.last_at < b.last_at ? 1 : -1));
}

/** The digest authorization gave the refused action (its error data), else none. */
function actionDigestOf(r: Receipt): string | null {
  const d = r.error?.data['action_digest'];
  return typeof d === 'string' ? d : null;
}

function denialsOf(receipts: readonly Receipt[]): DenialGroup[] {
  const groups = new Map<string, { task_id: string; tool: string; action_digest: string | null; count: number; codes: Set<string>; reasons: Set<string>; last: Receipt }>();
  for (const r of receipts) {
    if (r.status !== 'denied') continue;
    const digest = actionDigestOf(r);
    // Without a digest (refused before authorization, e.g. a path escape) the receipt is its own group.
    const key = `${r.task_id}\u0000${r.tool}\u0000${digest ?? r.receipt_id}`;
    const g = groups.get(key) ?? { task_id: r.task_id, tool: r.tool, action_digest: digest, count: 0, codes: new Set(), reasons: new Set(), last: r };
    g.count++;
    if (r.error) g.codes.add(r.error.code);
    for (const reason of r.decision?.reasons ?? []) g.reasons.add(reason);
    if (r.finished_at > g.last.finished_at) g.last = r;
    groups.set(key, g);
  }
  return [...groups.values()]
    .map((g) => ({
      task_id: g.task_id,
      tool: g.tool,
      action_digest: g.action_digest,
      count: g.count,
      repeated: g.codes.has('repeated_denial'),
      codes: [...g.codes],
      reasons: [...g.reasons],
      last_at: g.last.finished_at,
      last_receipt_id: g.last.receipt_id,
    }))
    .sort((a, b) => b.count - a.count || (a.last_at < b.last_at ? 1 : -1));
}

export async function overviewOf(rt: Runtime, now = Date.now()): Promise<Overview> {
  const [receipts, approvals, unsettled] = await Promise.all([rt.store.listReceipts({ limit: OVERVIEW_RECEIPTS }), rt.approvals.list({ status: 'pending' }, now), rt.listUnsettled()]);
  return {
    now: new Date(now).toISOString(),
    tasks: tasksOf(receipts),
    approvals: approvals.filter((a) => !a.expired),
    denials: denialsOf(receipts),
    unsettled,
  };
}

/**
 * `audit verify` over every chain. Asked for apart from the overview, which the page refreshes
 * every few seconds: it recomputes every receipt's digest, a cost that grows with the store.
 */
export async function auditOf(rt: Runtime): Promise<AuditView> {
  return { ...(await rt.store.verifyChain()), checked_at: new Date().toISOString() };
}

/** One task's receipts, oldest first. */
export async function timelineOf(rt: Runtime, task: string): Promise<Receipt[]> {
  return (await rt.store.listReceipts({ task: task as TaskId, limit: TIMELINE_RECEIPTS })).reverse();
}
