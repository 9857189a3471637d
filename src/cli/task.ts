// `toolgate task list | show ID | cancel ID`: the operator's view of the subtask tree (docs/tasks.md).
import type { TaskId } from '../protocol/index.js';
import { loadConfig } from './config.js';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';

export const taskCommand: Command = {
  name: 'task',
  summary: 'list, inspect or cancel subtasks',
  help: `toolgate task list [--root ID] [--json]
toolgate task show ID
toolgate task cancel ID [--reason TEXT]

Subtasks spawned with task.spawn (docs/tasks.md): their tree, state, deadline, owned paths,
budget and what they were charged; \`cancel\` ends one and its whole subtree (their hosts end
running calls with receipts; worktrees are removed).

Options: --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, root: { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const [verb, id, ...rest] = positionals;
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
    if (verb === undefined || !['list', 'show', 'cancel'].includes(verb)) throw new UsageError('task list | task show ID | task cancel ID');
    if (verb !== 'list' && id === undefined) throw new UsageError(`task ${verb} ID`);
    const loaded = loadConfig(values.config, values.workspace);
    const rt = await openRuntimeWithPolicy(values, { tasks: loaded.config.tasks ?? {} }, loaded);
    try {
      const board = rt.tasks;
      if (board === null) throw new UsageError('subtasks are not enabled');
      if (verb === 'list') {
        const list = await board.list(values.root === undefined ? {} : { root: values.root as TaskId });
        if (values.json) io.out(JSON.stringify(list, null, 2));
        else {
          io.out(['TASK', 'PARENT', 'DEPTH', 'STATE', 'DEADLINE', 'OWNED'].join('\t'));
          for (const s of list) io.out([s.task_id, s.parent_id, String(s.depth), s.state, new Date(s.record.deadline).toISOString(), s.record.owned.join(',')].join('\t'));
        }
        return 0;
      }
      const sub = await board.get(id as TaskId);
      if (sub === undefined) {
        io.err(`no subtask ${id}`);
        return 1;
      }
      if (verb === 'show') {
        io.out(JSON.stringify(sub, null, 2));
        return 0;
      }
      // The operator acts for the parent: cancelling is what the parent's task.cancel does.
      const ended = await board.cancel(sub.parent_id, sub.task_id, values.reason ?? 'cancelled by the operator');
      io.out(ended.length > 0 ? `cancelled ${ended.join(' ')}` : `${sub.task_id} was already ${sub.state}`);
      return 0;
    } finally {
      await rt.close();
    }
  },
};
