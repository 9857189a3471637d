// The only writes the web view makes: decide an approval, settle an effect by hand, run
// reconcile. Each goes through the runtime's API (the CLI's approve/deny/reconcile paths).
import { ToolgateError, type Receipt } from '../protocol/index.js';
import type { ReconcileReport, Runtime } from '../runtime/index.js';

/** A request body's field, or an invalid_request naming where it is missing. */
function field(body: Readonly<Record<string, unknown>>, name: string, allowed?: readonly string[]): string {
  const v = body[name];
  if (typeof v !== 'string' || v === '' || (allowed !== undefined && !allowed.includes(v))) {
    throw new ToolgateError('invalid_request', `${name} must be ${allowed ? `one of ${allowed.join(', ')}` : 'a non-empty string'}`, {
      faults: [{ pointer: `/${name}`, message: allowed ? `one of ${allowed.join(', ')}` : 'a non-empty string' }],
    });
  }
  return v;
}

/**
 * Approves or denies request `id`, bound to the action digest the page showed: when the stored
 * request binds another action, nothing is decided (a person approves what they saw, not what a
 * request id happens to name by then).
 */
export async function decideApproval(rt: Runtime, id: string, body: Readonly<Record<string, unknown>>, by: string, now = Date.now()): Promise<unknown> {
  const decision = field(body, 'decision', ['approve', 'deny']);
  const shown = field(body, 'action_digest');
  const record = await rt.approvals.get(id);
  if (!record) throw new ToolgateError('not_found', `no approval request ${id}`, { approval_id: id });
  if (record.action_digest !== shown) {
    throw new ToolgateError('precondition_failed', `approval request ${id} binds another action than the one shown: nothing was decided`, {
      approval_id: id,
      status: record.status,
      expires_at: new Date(record.expires_at).toISOString(),
    });
  }
  return decision === 'approve' ? rt.approvals.approve(id, by, now) : rt.approvals.deny(id, by, now);
}

/** An operator's settlement of one unsettled effect (`toolgate reconcile KEY --settle … --reason …`). */
export async function settleByHand(rt: Runtime, body: Readonly<Record<string, unknown>>): Promise<Receipt> {
  const task = field(body, 'task_id');
  const key = field(body, 'effect_key');
  const settled = field(body, 'settle', ['completed', 'released']) as 'completed' | 'released';
  const reason = field(body, 'reason').trim();
  if (reason === '') field({}, 'reason');
  const known = (await rt.listUnsettled()).some((e) => e.task_id === task && e.effect_key === key);
  if (!known) throw new ToolgateError('not_found', `no unsettled effect ${key} in task ${task}`, { task_id: task, effect_key: key });
  return rt.settle(task, key, settled, reason);
}

/** Settles what each tool's reconcile() can decide (`toolgate reconcile`). */
export function reconcileAll(rt: Runtime): Promise<ReconcileReport> {
  return rt.reconcile();
}
