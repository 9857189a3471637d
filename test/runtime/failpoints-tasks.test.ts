// Issue 21's fault matrix for the task tools (docs/tasks.md): task.spawn (a subtask row, its
// worktree, its token file), task.result (the child's patch merged into the parent's workspace as
// one file set), task.cancel (the subtask ended, its worktree removed), task.complete (the child's
// worktree committed and recorded, the commit kept under refs/toolgate/tasks/) and task.wait (a
// read). The subtask is made and worked on in the test by real runtimes over the same state dir;
// the call under test is killed at each failpoint by failpoint-matrix.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { Failpoint, TaskId } from '../../src/protocol/index.js';
import { envelope } from '../support/fixtures.js';
import { spawnArgs } from '../tasks/fixtures.js';
import { matrixTests, TASK, type NamedCase, type Setup, type ToolCase } from './failpoint-matrix.js';
import { failpointRuntimeOptions } from './failpoint-options.js';

const READ_PASSES: readonly Failpoint[] = ['after_claim', 'before_receipt', 'during_commit'];
/** No markSent: the tool's effect is its own (a store row, a worktree), not a sent request. */
const UNSENT_PASSES: readonly Failpoint[] = ['after_claim', 'during_effect', 'before_receipt', 'during_commit'];

function gitRepo(ws: string): void {
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src/a.txt'), 'a\n');
  execFileSync('git', ['init', '-q', ws]);
  execFileSync('git', ['-C', ws, 'add', '-A']);
  execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
}

async function call(rt: Runtime, task: string, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await rt.call(envelope(tool, args, { task_id: task }));
  assert.equal(r.status, 'succeeded', `${tool}: ${JSON.stringify(r.error)}`);
  return r.result as Record<string, unknown>;
}

/** A subtask of TASK owning src/, spawned by a parent runtime; with `complete`, its child wrote src/a.txt and handed back. */
async function subtask(ws: string, state: string, o: { complete?: boolean; write?: boolean; cancel?: boolean } = {}): Promise<{ id: string; worktree: string }> {
  gitRepo(ws);
  const rt = await createRuntime({ workspace: ws, stateDir: state, ...failpointRuntimeOptions('tasks') });
  try {
    const id = (await call(rt, TASK, 'task.spawn', spawnArgs(['src'])))['task_id'] as string;
    const worktree = (await rt.tasks?.get(id as TaskId))?.record.worktree ?? '';
    if (o.write) {
      const child = await createRuntime({ workspace: worktree, stateDir: state, ...failpointRuntimeOptions('subtask') });
      try {
        await call(child, id, 'fs.write', { path: 'src/a.txt', content: 'b\n', mode: 'create_or_replace' });
        if (o.complete) await call(child, id, 'task.complete', { conclusion: { summary: 'done' } });
      } finally {
        await child.close();
      }
    }
    if (o.cancel) await call(rt, TASK, 'task.cancel', { task_id: id });
    return { id, worktree };
  } finally {
    await rt.close();
  }
}

/** The subtasks the store holds: (task id, state) rows, read straight from the SQLite file. */
function subtaskRows(state: string): { task_id: string; state: string }[] {
  const file = join(state, 'toolgate.db');
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'subtasks'`).get();
    return has ? (db.prepare(`SELECT task_id, state FROM subtasks ORDER BY task_id`).all() as { task_id: string; state: string }[]) : [];
  } finally {
    db.close();
  }
}

const count = (dir: string, suffix = ''): number => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(suffix)).length : 0);
const keptRef = (ws: string, id: string): string => {
  try {
    execFileSync('git', ['-C', ws, 'rev-parse', '--verify', '--quiet', `refs/toolgate/tasks/${id}`], { stdio: 'ignore' });
    return 'kept';
  } catch {
    return 'none';
  }
};

const CASES: readonly NamedCase[] = [
  {
    name: 'task.spawn',
    make: async () => {
      let state = '';
      const image = (): string => {
        const running = subtaskRows(state).filter((r) => r.state === 'running').length;
        return `running=${running} worktrees=${count(`${state}.worktrees`)} tokens=${count(join(state, 'tasks'), '.token')}`;
      };
      return {
        kind: 'tasks',
        tool: 'task.spawn',
        args: spawnArgs(['src']),
        passes: UNSENT_PASSES,
        repeatable: true,
        tornAtCrash: true,
        prepare: (ws, dirs) => {
          state = dirs.state;
          gitRepo(ws);
        },
        image,
        pre: 'running=0 worktrees=0 tokens=0',
        post: 'running=1 worktrees=1 tokens=1',
        // One live subtask is the effect: a retry ends the one a crash orphaned (its token never
        // reached anyone) and spawns afresh, so the id may change, the count must not.
        identity: () => `running=${subtaskRows(state).filter((r) => r.state === 'running').length}`,
      };
    },
  },
  {
    name: 'task.result (merge)',
    make: async () => ({
      kind: 'tasks',
      tool: 'task.result',
      args: {},
      prepare: async (ws, dirs): Promise<Setup> => ({ args: { task_id: (await subtask(ws, dirs.state, { write: true, complete: true })).id } }),
      image: (ws) => readFileSync(join(ws, 'src/a.txt'), 'utf8'),
      pre: 'a\n',
      post: 'b\n',
      identity: (ws) => String(statSync(join(ws, 'src/a.txt')).ino),
    }),
  },
  {
    name: 'task.cancel',
    make: async () => {
      let state = '';
      let sub = { id: '', worktree: '' };
      const image = (): string => `${subtaskRows(state).find((r) => r.task_id === sub.id)?.state ?? 'absent'} worktree=${existsSync(sub.worktree) ? 'yes' : 'no'}`;
      return {
        kind: 'tasks',
        tool: 'task.cancel',
        args: {},
        passes: UNSENT_PASSES,
        repeatable: true,
        tornAtCrash: true,
        prepare: async (ws, dirs): Promise<Setup> => {
          state = dirs.state;
          sub = await subtask(ws, dirs.state);
          return { args: { task_id: sub.id } };
        },
        image,
        pre: 'running worktree=yes',
        post: 'cancelled worktree=no',
        identity: image,
      };
    },
  },
  {
    name: 'task.complete',
    make: async () => {
      let state = '';
      let parent = '';
      let id = '';
      const image = (): string => `${subtaskRows(state).find((r) => r.task_id === id)?.state ?? 'absent'} ref=${keptRef(parent, id)}`;
      return {
        kind: 'subtask',
        tool: 'task.complete',
        args: { conclusion: { summary: 'done' } },
        passes: UNSENT_PASSES,
        repeatable: true,
        tornAtCrash: true,
        prepare: async (ws, dirs): Promise<Setup> => {
          state = dirs.state;
          parent = ws;
          const sub = await subtask(ws, dirs.state, { write: true });
          id = sub.id;
          return { task: sub.id, workspace: sub.worktree };
        },
        image,
        pre: 'running ref=none',
        post: 'completed ref=kept',
        identity: image,
      };
    },
  },
  {
    name: 'task.wait',
    make: async (): Promise<ToolCase> => ({
      kind: 'tasks',
      tool: 'task.wait',
      args: {},
      passes: READ_PASSES,
      prepare: async (ws, dirs): Promise<Setup> => ({ args: { task_ids: [(await subtask(ws, dirs.state, { cancel: true })).id], timeout_ms: 1000 } }),
      image: () => 'read',
      pre: 'read',
      post: 'read',
      identity: () => 'read',
    }),
  },
];

matrixTests('failpoint matrix: task tools', CASES);
