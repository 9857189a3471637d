import { z } from 'zod';
import { EFFECT_CLASSES, type TaskId } from '../../protocol/index.js';
import type { Restrictions } from '../../policy/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import type { TaskBoard } from '../board.js';

const globs = z.array(z.string().min(1).max(1024)).max(64);
const limit = z.number().int().min(0);

export const taskSpawnArgs = z.strictObject({
  objective: z.string().min(1).max(8000).describe('What the subtask is for, in a sentence or a page'),
  output_schema: z.record(z.string(), z.unknown()).describe('JSON Schema the conclusion given to task.complete must match'),
  owned: z.array(z.string().min(1).max(1024)).min(1).max(64).describe('Workspace paths (files or directories) the subtask may change; two live subtasks never own overlapping paths'),
  restrictions: z
    .strictObject({
      tools: globs.optional(),
      effects: z.array(z.enum(EFFECT_CLASSES)).optional(),
      read: globs.optional(),
      write: globs.optional(),
      hosts: globs.optional(),
      refs: globs.optional(),
      programs: globs.optional(),
      approval_required: z.array(z.enum(EFFECT_CLASSES)).optional(),
    })
    .optional()
    .describe("Narrowings of the parent's grant for the child (docs/policy.md); e.g. {\"effects\":[\"read\"]} for a reviewer"),
  budget: z
    .strictObject({ calls: limit.optional(), bytes_read: limit.optional(), bytes_written: limit.optional(), cpu_ms: limit.optional(), wall_ms: limit.optional(), cost: limit.optional() })
    .describe("The child's budget, reserved from the parent's remainder; its use is charged to the parent"),
  deadline_ms: z.number().int().min(1000).describe("The child's deadline from now, cut to the parent's"),
});
export type TaskSpawnArgs = z.infer<typeof taskSpawnArgs>;

export const taskSpawnResult = z.strictObject({
  task_id: z.string(),
  parent_id: z.string(),
  depth: z.number().int(),
  state: z.string(),
  input_revision: z.string().describe('The commit the child starts from (the parent workspace as it was)'),
  deadline: z.string(),
  owned: z.array(z.string()),
  token_file: z.string().describe("The file holding the child's task token: give it to the agent that runs the child"),
  connect: z.array(z.string()).describe('How an agent connects as the child: toolgate serve --stdio with the token'),
});
export type TaskSpawnResult = z.infer<typeof taskSpawnResult>;

/** Zod's optional fields may hold `undefined`; a Restrictions field is absent or set. */
function definedOnly(r: object): Restrictions {
  return Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as Restrictions;
}

interface Prepared {
  readonly owned: readonly string[];
}

/** task.spawn: a subtask with its own worktree, attenuated grant, budget, deadline and owned paths. */
export function createTaskSpawn(board: TaskBoard): ToolDefinition<TaskSpawnArgs, TaskSpawnResult, Prepared> {
  return defineTool<TaskSpawnArgs, TaskSpawnResult, Prepared>({
    name: 'task.spawn',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Delegate a bounded objective to a subtask: it gets a git worktree of the workspace as it is now, a narrower grant, a budget and deadline taken from yours, and the paths it owns. An agent connects as the child with its token (token_file); collect its schema-checked conclusion and patch with task.result.',
    owner: 'toolgate',
    effect_class: 'execute',
    reversible: false,
    capabilities: ['process'],
    args: taskSpawnArgs,
    result: taskSpawnResult,
    timeout_ms: 120_000,
    max_output_bytes: 16 * 1024,
    cancellation: 'cooperative',
    // A retry spawns another child (bounded by fan-out); nothing in the workspace changes.
    idempotency: 'safe_to_repeat',
    normalize(args, ctx) {
      // Owned paths are canonical workspace paths; the parent must itself be allowed to write them.
      const owned = [...new Set(args.owned.map((p) => ctx.workspace.resolve(p).path))].sort();
      return { resources: owned.map((path) => ({ kind: 'path', path, access: 'write' })), prepared: { owned } };
    },
    async execute(ctx) {
      const { args } = ctx;
      const spawned = await board.spawn(
        ctx.task_id,
        ctx.workspace.root,
        (p) => ctx.workspace.classifier.classify(p) === 'secret',
        {
          objective: args.objective,
          output_schema: args.output_schema,
          owned: ctx.prepared.owned,
          restrictions: definedOnly(args.restrictions ?? {}),
          budget: args.budget,
          deadline_ms: args.deadline_ms,
          // What names this spawn across a retry: the logical effect, else the idempotency key (both within the parent task).
          spawned_by: ctx.logical_effect_id !== null ? `effect:${ctx.logical_effect_id}` : ctx.idempotency_key ? `key:${ctx.idempotency_key}` : null,
        },
        ctx.signal,
      );
      const s = spawned.subtask;
      return {
        status: 'succeeded',
        result: {
          task_id: s.task_id,
          parent_id: s.parent_id,
          depth: s.depth,
          state: s.state,
          input_revision: s.record.input_revision,
          deadline: new Date(s.record.deadline).toISOString(),
          owned: [...s.record.owned],
          token_file: spawned.token_file,
          connect: ['toolgate', 'serve', '--stdio', '--task-token-file', spawned.token_file, '--state-dir', board.stateDir],
        },
        evidence: { subtask: s.task_id as TaskId, input_revision: s.record.input_revision, worktree: s.record.worktree },
      };
    },
  });
}
