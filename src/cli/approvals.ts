import type { TaskId } from '../protocol/index.js';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';

const STATUSES = ['pending', 'approved', 'denied'] as const;

export const approvalsCommand: Command = {
  name: 'approvals',
  summary: 'list approval requests',
  help: `toolgate approvals list [--status pending|approved|denied|all] [--task ID] [--json]

Lists approval requests (default: pending ones that have not expired). Each binds one normalized
action (its digest), the policy version and the grant digest; decide with toolgate approve ID or
toolgate deny ID, then retry the same call in the same task.

Options: --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, status: { type: 'string' }, task: { type: 'string' }, json: { type: 'boolean' } });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const [verb, ...rest] = positionals;
    if (verb !== 'list' || rest.length > 0) throw new UsageError('approvals list [--status S] [--task ID] [--json]');
    const status = values.status ?? 'pending';
    if (status !== 'all' && !(STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status takes ${STATUSES.join(', ')} or all`);
    const rt = await openRuntimeWithPolicy(values);
    try {
      const now = Date.now();
      const list = (await rt.approvals
        .list({ ...(status === 'all' ? {} : { status: status as (typeof STATUSES)[number] }), ...(values.task ? { task: values.task as TaskId } : {}) }, now)
      ).filter((a) => status !== 'pending' || !a.expired);
      if (values.json) io.out(JSON.stringify(list, null, 2));
      else {
        io.out(['APPROVAL', 'TASK', 'TOOL', 'STATUS', 'EXPIRES', 'REASONS'].join('\t'));
        for (const a of list) {
          const state = a.expired ? `${a.status} (expired)` : a.status;
          io.out([a.id, a.task_id, `${a.action.tool}@${a.action.tool_version}`, state, new Date(a.expires_at).toISOString(), a.reasons.join('; ')].join('\t'));
        }
      }
      return 0;
    } finally {
      await rt.close();
    }
  },
};

function decideCommand(name: 'approve' | 'deny'): Command {
  return {
    name,
    summary: name === 'approve' ? 'approve a pending approval request' : 'deny a pending approval request',
    help: `toolgate ${name} APPROVAL_ID [--by NAME] [--json]

${name === 'approve' ? 'Approves' : 'Denies'} a pending, unexpired request. ${
      name === 'approve'
        ? 'A retry of exactly the same normalized action in the same task, under the same policy version and grant, then proceeds until the approval expires.'
        : 'A retry of the same action is then refused with policy_denied.'
    } Exit 1 when the request is unknown, already decided or expired.

Options: --by NAME (default: $USER), --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
    async run(argv, io) {
      const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, by: { type: 'string' }, json: { type: 'boolean' } });
      if (values.help) {
        io.out(this.help);
        return 0;
      }
      const [id, ...rest] = positionals;
      if (id === undefined || rest.length > 0) throw new UsageError(`${name} APPROVAL_ID`);
      const by = values.by ?? process.env['USER'] ?? 'cli';
      const rt = await openRuntimeWithPolicy(values);
      try {
        const record = await (name === 'approve' ? rt.approvals.approve(id, by, Date.now()) : rt.approvals.deny(id, by, Date.now()));
        io.out(values.json ? JSON.stringify(record, null, 2) : `${record.id}\t${record.status} by ${by} until ${new Date(record.expires_at).toISOString()}`);
        return 0;
      } finally {
        await rt.close();
      }
    },
  };
}

export const approveCommand = decideCommand('approve');
export const denyCommand = decideCommand('deny');
