// The task tree's operations over the store: spawn (bounds, ownership, the child's grant, budget
// and worktree), complete, cancel (the whole subtree), wait (the wait-for graph) and the state a
// parent reads. One board per runtime; every runtime on the same store sees the same tree.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, failpoint, sha256Hex, ToolgateError, type ArtifactRef, type TaskId } from '../protocol/index.js';
import { attenuate, BUDGET_DIMENSIONS, type BudgetLimitsSpec, type Grant, type Restrictions, type Usage } from '../policy/index.js';
import type { ArtifactSink } from '../registry/index.js';
import type { Store, SubtaskStore } from '../store/index.js';
import type { TaskSettings } from './config.js';
import { isTerminal, subtaskOf, type Subtask, type SubtaskRecord, type TaskState } from './record.js';
import { checkConclusion, compileOutputSchema } from './schema.js';
import { checkSpawn, ownedBy, type SpawnRefusal } from './tree.js';
import { addWorktree, keepCommit, removeWorktree, repositoryAt, snapshotChild, snapshotWorkspace, type Repository, type SecretTest } from './worktree.js';

export interface SpawnSpec {
  readonly objective: string;
  readonly output_schema: Readonly<Record<string, unknown>>;
  /** Canonical workspace-relative paths. */
  readonly owned: readonly string[];
  readonly restrictions: Restrictions;
  readonly budget: BudgetLimitsSpec;
  readonly deadline_ms: number;
  /** The spawning call's logical effect id, when it has one. */
  readonly spawned_by?: string | null;
}

export interface Spawned {
  readonly subtask: Subtask;
  /** The file that holds the child's task token (0600, in the state dir): never in a receipt. */
  readonly token_file: string;
}

/** A task token: 32 random bytes; the store keeps only its digest. */
export function tokenDigest(token: string): string {
  return sha256Hex(token.trim());
}

function spawnError(r: SpawnRefusal): ToolgateError {
  if (r.kind === 'bound') return new ToolgateError('task_bound_exceeded', `the task tree's ${r.bound} bound (${r.limit}) is reached`, { bound: r.bound, limit: r.limit, current: r.current });
  return new ToolgateError('ownership_conflict', `owned paths ${r.paths.join(', ')} ${r.reason === 'held_by' ? `overlap those of live subtask ${r.task_id}` : "lie outside the spawning subtask's own"}`, {
    reason: r.reason,
    paths: r.paths,
    task_id: r.task_id,
  });
}

export class TaskBoard {
  readonly #store: Store;
  readonly #stateDir: string;
  readonly settings: TaskSettings;

  get stateDir(): string {
    return this.#stateDir;
  }

  constructor(store: Store, stateDir: string, settings: TaskSettings) {
    this.#store = store;
    this.#stateDir = stateDir;
    this.settings = settings;
  }

  get #tree(): SubtaskStore {
    const s = this.#store.subtasks;
    if (s === undefined) throw new ToolgateError('task_state', 'this store keeps no task tree', { task_id: '', state: 'none', reason: 'no_task_store' });
    return s;
  }

  /** The subtask as it is now; one whose deadline passed is moved to `expired` (and charged) first. */
  async get(id: TaskId): Promise<Subtask | undefined> {
    const row = await this.#tree.getSubtask(id);
    if (row === undefined) return undefined;
    const sub = subtaskOf(row);
    if (sub.state === 'running' && Date.now() > sub.record.deadline) return (await this.#end(sub, 'expired', 'deadline passed')) ?? this.get(id);
    return sub;
  }

  async byToken(token: string): Promise<Subtask | undefined> {
    const row = await this.#tree.subtaskByToken(tokenDigest(token));
    return row === undefined ? undefined : this.get(row.task_id);
  }

  async list(filter: { root?: TaskId; parent?: TaskId } = {}): Promise<Subtask[]> {
    const rows = await this.#tree.listSubtasks(filter);
    return Promise.all(rows.map(async (r) => (await this.get(r.task_id)) ?? subtaskOf(r)));
  }

  /** The repository a task works in: a subtask's worktree (through the common git dir), else the workspace root. */
  async #repoOf(task: TaskId, root: string): Promise<Repository> {
    const row = await this.get(task);
    return row === undefined ? repositoryAt(root) : { root: row.record.worktree, gitDir: row.record.git_dir };
  }

  async spawn(parent: TaskId, workspaceRoot: string, isSecret: SecretTest, spec: SpawnSpec, signal: AbortSignal): Promise<Spawned> {
    compileOutputSchema(spec.output_schema);
    const parentSub = await this.get(parent);
    if (parentSub !== undefined && parentSub.state !== 'running') throw new ToolgateError('task_state', `task ${parent} is ${parentSub.state}`, { task_id: parent, state: parentSub.state, reason: 'not_running' });
    const grant = await this.#store.grants.getGrant(parent);
    if (grant === undefined) throw new ToolgateError('internal_error', `task ${parent} has no grant`);
    this.#checkBudgetSpec(grant, spec.budget);
    const now = Date.now();
    const parentDeadline = Math.min(parentSub?.record.deadline ?? Infinity, grant.deadline === null ? Infinity : Date.parse(grant.deadline));
    // The child's deadline fits in the parent's remainder: it is cut to the parent's.
    const deadline = Math.min(now + Math.min(spec.deadline_ms, this.settings.maxDeadlineMs), parentDeadline);
    if (spec.spawned_by) await this.#endInterruptedSpawn(parent, spec.spawned_by);
    const repo = await this.#repoOf(parent, workspaceRoot);
    const input = await snapshotWorkspace(repo, isSecret, signal);
    const task_id = `tsk_${randomUUID().replace(/-/g, '')}` as TaskId;
    const reservation_id = `bud_${randomUUID()}`;
    const reserved = await this.#store.budgets.reserve({ id: reservation_id, task_id: parent, limits: grant.budget, amounts: this.#amounts(spec.budget), now, expires_at: deadline });
    if (!reserved.ok) {
      throw new ToolgateError('budget_exhausted', `the child's ${reserved.dimension} budget does not fit in the parent's remainder`, {
        dimension: reserved.dimension,
        limit: reserved.limit,
        used: reserved.used,
        reserved: reserved.reserved,
        requested: reserved.requested,
        grant_digest: '',
      });
    }
    const token = `tgk_${randomBytes(32).toString('base64url')}`;
    const tokenFile = join(this.#stateDir, 'tasks', `${task_id}.token`);
    const record: SubtaskRecord = {
      objective: spec.objective,
      output_schema: spec.output_schema,
      owned: [...spec.owned],
      input_revision: input,
      git_dir: repo.gitDir,
      worktree: join(this.settings.worktreeDir, task_id),
      worktree_removed: false,
      deadline,
      budget: spec.budget,
      reservation_id,
      token_file: tokenFile,
      charged: null,
      result: null,
      merge: null,
      ended_reason: null,
      ...(spec.spawned_by ? { spawned_by: spec.spawned_by } : {}),
    };
    const depth = (parentSub?.depth ?? 0) + 1;
    const stamp = new Date(now).toISOString();
    const row = { task_id, parent_id: parent, root_id: parentSub?.root_id ?? parent, depth, state: 'running', token_digest: tokenDigest(token), record: { ...record }, created_at: stamp, updated_at: stamp };
    let refusal: SpawnRefusal | null;
    try {
      refusal = await this.#tree.insertSubtask(row, (tree) => checkSpawn(this.settings.bounds, parent, depth, spec.owned, tree));
    } catch (e) {
      await this.#store.budgets.release(reservation_id);
      throw e;
    }
    if (refusal !== null) {
      await this.#store.budgets.release(reservation_id);
      throw spawnError(refusal);
    }
    try {
      await this.#store.grants.putGrantIfAbsent(this.#childGrant(grant, task_id, spec, deadline));
      mkdirSync(this.settings.worktreeDir, { recursive: true, mode: 0o700 });
      await addWorktree(repo, record.worktree, input, signal);
      failpoint('during_effect'); // the subtask's row and worktree made, its token not yet written
      mkdirSync(join(this.#stateDir, 'tasks'), { recursive: true, mode: 0o700 });
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      const sub = await this.get(task_id);
      if (sub !== undefined) await this.#end(sub, 'failed', `spawn failed: ${(e as Error).message}`);
      throw e;
    }
    return { subtask: (await this.get(task_id)) as Subtask, token_file: tokenFile };
  }

  /**
   * A retry of a spawn whose call ended without a receipt (the host crashed after the subtask was
   * made: found by the failpoint matrix, test/runtime/failpoints-tasks.test.ts). Its token never
   * reached anyone, and it holds the owned paths and a budget share: it is ended (failed) and its
   * worktree removed, and the retry spawns afresh. A spawn that answered is replayed by its
   * receipt and never gets here.
   */
  async #endInterruptedSpawn(parent: TaskId, spawnedBy: string): Promise<void> {
    for (const s of await this.list({ parent })) {
      if (s.state !== 'running' || s.record.spawned_by !== spawnedBy) continue;
      await this.#end(s, 'failed', 'spawn interrupted: its call ended without an answer (a crash); spawned again');
      await this.release(s.task_id);
    }
  }

  /** Every dimension the parent's grant limits must be given a share: an unlimited child could not fit. */
  #checkBudgetSpec(grant: Grant, budget: BudgetLimitsSpec): void {
    const missing = BUDGET_DIMENSIONS.filter((d) => grant.budget[d] !== null && budget[d] === undefined);
    if (missing.length > 0) {
      throw new ToolgateError('invalid_arguments', `the parent's budget limits ${missing.join(', ')}: give the child a share of each`, {
        faults: missing.map((d) => ({ pointer: `/budget/${d}`, message: "required: the parent's grant limits this dimension" })),
      });
    }
  }

  #amounts(budget: BudgetLimitsSpec): Usage {
    return Object.fromEntries(BUDGET_DIMENSIONS.filter((d) => budget[d] !== undefined).map((d) => [d, budget[d] as number]));
  }

  /** The parent's grant, narrowed by the caller's restrictions, then to the owned paths, the budget and the deadline. */
  #childGrant(parent: Grant, task_id: TaskId, spec: SpawnSpec, deadline: number): Grant {
    const subject = { ...parent.subject, task_id, attempt_id: null, cancellation_epoch: 0 };
    const r = spec.restrictions;
    // The child can always hand back: task.complete is the one way it does.
    const narrowed = attenuate(parent, r.tools === undefined ? r : { ...r, tools: [...r.tools, 'task.complete'] }, subject);
    const write = spec.owned.flatMap((p) => (p === '' || p === '.' ? ['**'] : [p, `${p}/**`]));
    return attenuate(narrowed, { write, budget: spec.budget, deadline: new Date(deadline).toISOString() }, subject);
  }

  /** Moves a live subtask to a terminal state and charges its usage to the parent's reservation. */
  async #end(sub: Subtask, state: TaskState, reason: string, extra: Partial<SubtaskRecord> = {}): Promise<Subtask | undefined> {
    const charged = await this.#usageOf(sub);
    const record: SubtaskRecord = { ...sub.record, ...extra, charged, ended_reason: reason };
    const moved = await this.#tree.updateSubtask(sub.task_id, ['running'], state, { ...record });
    if (!moved) return undefined;
    await this.#store.budgets.settle(sub.record.reservation_id, charged);
    // The token is refused from now on; its file goes too (on this host: another host's stays, inert).
    rmSync(sub.record.token_file, { force: true });
    return { ...sub, state, record };
  }

  /** What the child used (and still holds reserved) in every dimension of its budget. */
  async #usageOf(sub: Subtask): Promise<Usage> {
    const usage = await this.#store.budgets.usage(sub.task_id);
    return Object.fromEntries(BUDGET_DIMENSIONS.filter((d) => sub.record.budget[d] !== undefined).map((d) => [d, usage[d].used + usage[d].reserved]));
  }

  /** The child hands back: the conclusion (checked), its tree as a commit and a patch, bound to its receipts. */
  async complete(child: TaskId, conclusion: unknown, artifacts: ArtifactSink, isSecret: SecretTest, signal: AbortSignal): Promise<Subtask> {
    const sub = await this.get(child);
    if (sub === undefined) throw new ToolgateError('task_state', `task ${child} is not a subtask: only a subtask completes`, { task_id: child, state: 'root', reason: 'not_in_tree' });
    const done = sub.record.result;
    if (sub.state === 'completed' && done !== null && canonicalJson(done.conclusion) === canonicalJson(conclusion)) {
      // The same hand-back again: a retry after a crash between the record and the receipt
      // (failpoint matrix). The recorded result stands; its commit is kept if the crash came first.
      await keepCommit({ root: sub.record.worktree, gitDir: sub.record.git_dir }, child, done.commit);
      return sub;
    }
    if (sub.state !== 'running') throw new ToolgateError('task_state', `task ${child} is ${sub.state}`, { task_id: child, state: sub.state, reason: 'not_running' });
    checkConclusion(sub.record.output_schema, conclusion, this.settings.maxConclusionBytes);
    const repo = { root: sub.record.worktree, gitDir: sub.record.git_dir };
    const snap = await snapshotChild(repo, sub.record.worktree, sub.record.input_revision, child, isSecret, signal);
    const outside = snap.changes.map((c) => c.path).filter((p) => !ownedBy(p, sub.record.owned));
    if (outside.length > 0) {
      throw new ToolgateError('ownership_conflict', `the subtask changed paths it does not own: ${outside.slice(0, 10).join(', ')}`, { reason: 'changed_outside', paths: outside, task_id: child });
    }
    // Its own subtasks end with it: nothing runs on behalf of a task that handed back.
    for (const c of await this.#tree.listSubtasks({ parent: child })) await this.cancel(child, c.task_id, 'the parent completed');
    const receipts = await this.#store.listReceipts({ task: child });
    const head = receipts[0];
    const patch: ArtifactRef | null = snap.patch.length > 0 ? artifacts.put(snap.patch, 'text/x-diff', `subtask-patch:${child}`) : null;
    const result = {
      conclusion,
      commit: snap.commit,
      changes: snap.changes,
      patch,
      evidence: { receipts: receipts.length, head_receipt_id: head?.receipt_id ?? null, head_digest: head?.digest ?? null },
      completed_at: new Date().toISOString(),
    };
    const ended = await this.#end(sub, 'completed', 'completed', { result });
    failpoint('during_effect'); // the subtask recorded completed, its result commit not yet kept under refs/toolgate/tasks/
    if (ended === undefined) {
      const now = await this.get(child);
      throw new ToolgateError('task_state', `task ${child} ended while completing`, { task_id: child, state: now?.state ?? 'unknown', reason: 'not_running' });
    }
    await keepCommit(repo, child, snap.commit);
    return ended;
  }

  /** Whether `ancestor` is above `task` in its tree. */
  async #isAncestor(ancestor: TaskId, task: Subtask): Promise<boolean> {
    for (let at: Subtask | undefined = task; at !== undefined; at = await this.get(at.parent_id)) if (at.parent_id === ancestor) return true;
    return false;
  }

  async #requireDescendant(caller: TaskId, target: TaskId): Promise<Subtask> {
    const sub = await this.get(target);
    if (sub === undefined) throw new ToolgateError('not_found', `no subtask ${target}`, { path: target });
    if (!(await this.#isAncestor(caller, sub))) throw new ToolgateError('task_state', `task ${caller} is not an ancestor of ${target}`, { task_id: target, state: sub.state, reason: 'not_ancestor' });
    return sub;
  }

  /** Cancels `target` and every subtask below it; removes their worktrees. Returns the ids it ended. */
  async cancel(caller: TaskId, target: TaskId, reason: string): Promise<TaskId[]> {
    const top = await this.#requireDescendant(caller, target);
    const tree = await this.list({ root: top.root_id });
    const below = (id: TaskId): Subtask[] => tree.filter((s) => s.parent_id === id).flatMap((s) => [s, ...below(s.task_id)]);
    const ended: TaskId[] = [];
    // Deepest first: a child's charge reaches its parent's usage before the parent's is read.
    for (const s of [top, ...below(top.task_id)].reverse()) {
      const now = await this.get(s.task_id);
      if (now?.state === 'running' && (await this.#end(now, 'cancelled', reason)) !== undefined) ended.push(s.task_id);
      failpoint('during_effect'); // the subtask ended, its worktree not yet removed
      await this.release(s.task_id);
    }
    return ended;
  }

  /** Cancels every live child of `task` and their subtrees (the task itself was cancelled). */
  async cancelChildren(task: TaskId): Promise<TaskId[]> {
    if (this.#store.subtasks === undefined) return [];
    const ended: TaskId[] = [];
    for (const c of await this.#tree.listSubtasks({ parent: task })) if (c.state === 'running') ended.push(...(await this.cancel(task, c.task_id, `parent ${task} was cancelled`)));
    return ended;
  }

  /** Effects of these tasks still claimed or sent: calls a host has not ended with a receipt yet. */
  async inFlight(tasks: readonly TaskId[]): Promise<number> {
    let n = 0;
    for (const task of tasks) for (const state of ['claimed', 'sent'] as const) n += (await this.#store.listEffects({ task, state })).length;
    return n;
  }

  /** Removes an ended subtask's worktree (its result commit stays under refs/toolgate/tasks/). */
  async release(task: TaskId): Promise<void> {
    const sub = await this.get(task);
    if (sub === undefined || sub.record.worktree_removed || !isTerminal(sub.state)) return;
    await removeWorktree({ root: sub.record.worktree, gitDir: sub.record.git_dir }, sub.record.worktree);
    await this.#tree.updateSubtask(task, [sub.state], sub.state, { ...sub.record, worktree_removed: true });
  }

  async recordMerge(task: TaskId, merge: SubtaskRecord['merge']): Promise<void> {
    const sub = await this.get(task);
    if (sub !== undefined) await this.#tree.updateSubtask(task, [sub.state], sub.state, { ...sub.record, merge });
  }

  /** The subtask a parent reads the result of: its own child. */
  async childOf(caller: TaskId, target: TaskId): Promise<Subtask> {
    const sub = await this.get(target);
    if (sub === undefined) throw new ToolgateError('not_found', `no subtask ${target}`, { path: target });
    if (sub.parent_id !== caller) throw new ToolgateError('task_state', `task ${target} is not a child of ${caller}`, { task_id: target, state: sub.state, reason: 'not_ancestor' });
    return sub;
  }

  /** The child's receipt of its task.complete that succeeded: what a parent's task.result links to. */
  async completionReceipt(child: TaskId): Promise<{ receipt_id: string; digest: string } | null> {
    const r = (await this.#store.listReceipts({ task: child })).find((x) => x.tool === 'task.complete' && x.status === 'succeeded');
    return r ? { receipt_id: r.receipt_id, digest: r.digest } : null;
  }

  /** The stored tree, for the wait-for graph. */
  get tree(): SubtaskStore {
    return this.#tree;
  }
}
