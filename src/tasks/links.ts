// `audit verify` over the task tree: each chain verifies on its own (the store's chain check);
// this checks the links between a parent's chain and a child's. The parent's task.spawn receipt
// names the child; the child's task.complete receipt carries the commit its row records and
// binds the child's newest receipt before it; the parent's task.result receipt names the child's
// completion receipt by id and digest.
import type { Receipt, TaskId } from '../protocol/index.js';
import type { Store } from '../store/index.js';
import { subtaskOf } from './record.js';

export interface TaskLinkReport {
  readonly ok: boolean;
  readonly subtasks: number;
  readonly links: number;
  readonly broken: readonly { readonly task_id: string; readonly link: 'spawn' | 'complete' | 'result' | 'chain'; readonly reason: string }[];
}

function field(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
}

export async function checkTaskLinks(store: Store): Promise<TaskLinkReport> {
  const rows = (await store.subtasks?.listSubtasks({})) ?? [];
  const broken: { task_id: string; link: 'spawn' | 'complete' | 'result' | 'chain'; reason: string }[] = [];
  let links = 0;
  const chains = new Map<TaskId, Receipt[]>();
  const chainOf = async (t: TaskId): Promise<Receipt[]> => {
    let c = chains.get(t);
    if (c === undefined) chains.set(t, (c = await store.listReceipts({ task: t })));
    return c;
  };
  for (const row of rows) {
    const sub = subtaskOf(row);
    for (const t of [sub.task_id, sub.parent_id]) {
      const v = await store.verifyChain(t);
      if (!v.ok) broken.push({ task_id: t, link: 'chain', reason: v.broken[0]?.reason ?? 'broken chain' });
    }
    const parent = await chainOf(sub.parent_id);
    const spawn = parent.find((r) => r.tool === 'task.spawn' && r.status === 'succeeded' && field(r.result, 'task_id') === sub.task_id);
    if (spawn === undefined) broken.push({ task_id: sub.task_id, link: 'spawn', reason: `no task.spawn receipt of ${sub.parent_id} names it` });
    else links++;
    if (sub.state !== 'completed') continue;
    const child = await chainOf(sub.task_id);
    const completion = child.find((r) => r.tool === 'task.complete' && r.status === 'succeeded');
    const result = sub.record.result;
    if (completion === undefined || result === null || field(completion.result, 'commit') !== result.commit) {
      broken.push({ task_id: sub.task_id, link: 'complete', reason: 'no task.complete receipt carries the commit its row records' });
      continue;
    }
    const head = result.evidence.head_receipt_id;
    if (head !== null && !child.some((r) => r.receipt_id === head && r.digest === result.evidence.head_digest)) {
      broken.push({ task_id: sub.task_id, link: 'complete', reason: `the bound receipt ${head} is not in the child's chain` });
      continue;
    }
    links++;
    for (const r of parent.filter((x) => x.tool === 'task.result' && x.status === 'succeeded' && field(x.result, 'task_id') === sub.task_id)) {
      const named = field(r.evidence, 'child_completion_receipt');
      if (field(named, 'receipt_id') !== completion.receipt_id || field(named, 'digest') !== completion.digest) {
        broken.push({ task_id: sub.task_id, link: 'result', reason: `task.result receipt ${r.receipt_id} does not name the child's completion receipt` });
      } else links++;
    }
  }
  return { ok: broken.length === 0, subtasks: rows.length, links, broken };
}
