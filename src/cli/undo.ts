import { newTaskId, PROTOCOL_VERSION } from '../protocol/index.js';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';

export const undoCommand: Command = {
  name: 'undo',
  summary: 'undo an fs.write / fs.patch / fs.delete / fs.rename receipt',
  help: `toolgate undo RECEIPT_ID [options]

Restores the preimages a mutation's receipt recorded, if every file it changed still has the
digest it left; otherwise the call fails with undo_conflict naming the files changed since.
The undo is itself a call (fs.undo): its receipt is printed. Exit 0 when it succeeded.

Options:
  --task ID          task id (default: a new task)
  --workspace DIR    workspace root (default: current directory)
  --state-dir DIR    state dir (default: $XDG_STATE_HOME/toolgate/<workspace id>)
  --store-url URL    PostgreSQL store (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, task: { type: 'string' } });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const [id, ...rest] = positionals;
    if (id === undefined) throw new UsageError('name the receipt: toolgate undo RECEIPT_ID');
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
    const rt = await openRuntimeWithPolicy(values);
    try {
      const receipt = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: values.task ?? newTaskId(), tool: 'fs.undo', arguments: { receipt_id: id } });
      io.out(JSON.stringify(receipt, null, 2));
      return receipt.status === 'succeeded' ? 0 : 1;
    } finally {
      await rt.close();
    }
  },
};
