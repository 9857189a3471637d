import { readFileSync } from 'node:fs';
import { newTaskId, PROTOCOL_VERSION, type TaskId } from '../protocol/index.js';
import { intOption, parse, RUNTIME_OPTIONS } from './options.js';
import { UsageError, type Command } from './usage.js';
import { openRuntimeWithPolicy, policyHelp, POLICY_OPTIONS, readGrantFile } from './policy-files.js';
import { ignoredGrantWarning } from './grant-notice.js';

export const callCommand: Command = {
  name: 'call',
  summary: 'run one tool call and print its receipt',
  help: `toolgate call TOOL --args JSON [options]
toolgate call --envelope FILE [options]

Runs one call through the whole pipeline and prints the committed receipt as JSON.
Exit 0 when the receipt's status is "succeeded", 1 otherwise, 2 for a usage error.

Options:
  --args JSON             the tool's arguments (default {})
  --envelope FILE         a complete tool-call.v1 envelope ('-' for stdin)
  --task ID               task id (default: a new task)
  --idempotency-key K     key of the logical effect; a repeat returns the stored receipt
  --logical-effect-id ID  logical effect id
  --deadline-ms N         deadline, N ms from now (covers queueing and execution)
${policyHelp(26)}
                          A refused call exits 1 with error.code policy_denied,
                          approval_required, repeated_denial or budget_exhausted.
  --workspace DIR         workspace root (default: current directory)
  --state-dir DIR         state dir (default: $XDG_STATE_HOME/toolgate/<workspace id>)
  --config FILE           configuration (default: toolgate.config.json in the workspace, if any)
  --store-url URL         keep the state in this PostgreSQL database, shared by several hosts
                          (default: $TOOLGATE_STORE_URL, then store.url of the configuration,
                          else SQLite in the state dir)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      ...RUNTIME_OPTIONS,
      args: { type: 'string' },
      envelope: { type: 'string' },
      task: { type: 'string' },
      'idempotency-key': { type: 'string' },
      'logical-effect-id': { type: 'string' },
      'deadline-ms': { type: 'string' },
      ...POLICY_OPTIONS,
    });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    let envelope: unknown;
    if (values.envelope !== undefined) {
      if (positionals.length > 0 || values.args !== undefined) throw new UsageError('--envelope takes the whole call: give no TOOL or --args');
      const text = readFileSync(values.envelope === '-' ? 0 : values.envelope, 'utf8');
      try {
        envelope = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`--envelope: not JSON: ${(e as Error).message}`);
      }
    } else {
      const [tool, ...rest] = positionals;
      if (tool === undefined) throw new UsageError('name the tool: toolgate call TOOL --args JSON');
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
      let args: unknown = {};
      if (values.args !== undefined) {
        try {
          args = JSON.parse(values.args);
        } catch (e) {
          throw new UsageError(`--args: not JSON: ${(e as Error).message}`);
        }
      }
      const deadlineMs = intOption(values['deadline-ms'], 'deadline-ms');
      envelope = {
        protocol_version: PROTOCOL_VERSION,
        task_id: values.task ?? newTaskId(),
        tool,
        arguments: args,
        ...(values['idempotency-key'] !== undefined ? { idempotency_key: values['idempotency-key'] } : {}),
        ...(values['logical-effect-id'] !== undefined ? { logical_effect_id: values['logical-effect-id'] } : {}),
        ...(deadlineMs !== undefined ? { deadline: new Date(Date.now() + deadlineMs).toISOString() } : {}),
      };
    }
    const rt = await openRuntimeWithPolicy(values);
    const task = (envelope as { task_id?: unknown } | null)?.task_id;
    if (values.grant !== undefined && typeof task === 'string') {
      const warning = await ignoredGrantWarning(rt, task as TaskId, values.grant, readGrantFile(values.grant)).catch(async (e: unknown) => {
        await rt.close();
        throw e;
      });
      if (warning !== undefined) io.err(`toolgate call: ${warning}`);
    }
    const controller = new AbortController();
    const onSignal = (): void => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const receipt = await rt.call(envelope, { signal: controller.signal });
      io.out(JSON.stringify(receipt, null, 2));
      return receipt.status === 'succeeded' ? 0 : 1;
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await rt.close();
    }
  },
};
