// The task tree's rules as pure functions over rows: bounds at spawn, ownership of paths, and
// the wait-for graph's cycle check. The store runs each inside the transaction of its write.
import type { TaskId } from '../protocol/index.js';
import type { SubtaskRow, WaitEdge } from '../store/index.js';

export interface TaskBounds {
  /** Levels below a root task (a root's child is depth 1). */
  readonly maxDepth: number;
  /** Children one task may spawn. */
  readonly maxFanout: number;
  /** Subtasks in one tree. */
  readonly maxDescendants: number;
}

export type SpawnRefusal =
  | { readonly kind: 'bound'; readonly bound: 'depth' | 'fanout' | 'descendants'; readonly limit: number; readonly current: number }
  | { readonly kind: 'ownership'; readonly reason: 'held_by' | 'outside_owner'; readonly paths: readonly string[]; readonly task_id: TaskId | null };

/** Whether two workspace-relative paths name overlapping trees ('' or '.' is the whole workspace). */
export function pathsOverlap(a: string, b: string): boolean {
  if (a === '' || a === '.' || b === '' || b === '.') return true;
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** Whether `path` lies within one of `owned`. */
export function ownedBy(path: string, owned: readonly string[]): boolean {
  return owned.some((o) => o === '' || o === '.' || path === o || path.startsWith(`${o}/`));
}

function ancestorsOf(id: TaskId, tree: readonly SubtaskRow[]): Set<TaskId> {
  const byId = new Map(tree.map((r) => [r.task_id, r]));
  const out = new Set<TaskId>();
  for (let at = byId.get(id); at !== undefined; at = byId.get(at.parent_id)) out.add(at.task_id);
  return out;
}

/** Decides a spawn under `parent` owning `owned`, over the rows of its tree as they are now. */
export function checkSpawn(bounds: TaskBounds, parent: TaskId, depth: number, owned: readonly string[], tree: readonly SubtaskRow[]): SpawnRefusal | null {
  if (depth > bounds.maxDepth) return { kind: 'bound', bound: 'depth', limit: bounds.maxDepth, current: depth - 1 };
  const children = tree.filter((r) => r.parent_id === parent).length;
  if (children >= bounds.maxFanout) return { kind: 'bound', bound: 'fanout', limit: bounds.maxFanout, current: children };
  if (tree.length >= bounds.maxDescendants) return { kind: 'bound', bound: 'descendants', limit: bounds.maxDescendants, current: tree.length };
  const parentRow = tree.find((r) => r.task_id === parent);
  if (parentRow !== undefined) {
    // Ownership only narrows: a subtask hands on part of what it owns.
    const parentOwned = (parentRow.record['owned'] as readonly string[] | undefined) ?? [];
    const outside = owned.filter((p) => !ownedBy(p, parentOwned));
    if (outside.length > 0) return { kind: 'ownership', reason: 'outside_owner', paths: outside, task_id: parent };
  }
  const mine = ancestorsOf(parent, tree);
  for (const r of tree) {
    // A live subtask that is not above the new one holds its paths; its ancestors own them through it.
    if (r.state !== 'running' || mine.has(r.task_id)) continue;
    const held = (r.record['owned'] as readonly string[] | undefined) ?? [];
    const overlap = owned.filter((p) => held.some((h) => pathsOverlap(p, h)));
    if (overlap.length > 0) return { kind: 'ownership', reason: 'held_by', paths: overlap, task_id: r.task_id };
  }
  return null;
}

/**
 * The cycle `waiter → targets` would close in the wait-for graph of the `live` edges: the path
 * from the waiter back to itself, or null. A waiter may wait on several tasks; any one that
 * (transitively) waits on the waiter is a deadlock.
 */
export function cycleOf(waiter: TaskId, targets: readonly TaskId[], live: readonly WaitEdge[]): TaskId[] | null {
  const next = new Map<TaskId, TaskId[]>();
  for (const e of live) next.set(e.waiter, [...(next.get(e.waiter) ?? []), e.target]);
  for (const t of targets) {
    // Depth-first from the target, remembering the path: reaching the waiter closes the cycle.
    const stack: { node: TaskId; path: TaskId[] }[] = [{ node: t, path: [waiter, t] }];
    const seen = new Set<TaskId>();
    while (stack.length > 0) {
      const { node, path } = stack.pop() as { node: TaskId; path: TaskId[] };
      if (node === waiter) return path;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const n of next.get(node) ?? []) stack.push({ node: n, path: [...path, n] });
    }
  }
  return null;
}
