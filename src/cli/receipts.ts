import { intOption, parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';
import type { TaskId } from '../protocol/index.js';

export const receiptsCommand: Command = {
  name: 'receipts',
  summary: 'list or show stored receipts',
  help: `toolgate receipts list [--task ID] [--limit N] [--json]
toolgate receipts show RECEIPT_ID

Options: --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, task: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const [verb, id, ...rest] = positionals;
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
    if (verb !== 'list' && verb !== 'show') throw new UsageError('receipts list | receipts show ID');
    const rt = await openRuntimeWithPolicy(values);
    try {
      if (verb === 'show') {
        if (id === undefined) throw new UsageError('receipts show RECEIPT_ID');
        const r = await rt.getReceipt(id);
        if (!r) {
          io.err(`no receipt ${id}`);
          return 1;
        }
        io.out(JSON.stringify(r, null, 2));
        return 0;
      }
      const limit = intOption(values.limit, 'limit') ?? 50;
      const list = await rt.store.listReceipts({ ...(values.task ? { task: values.task as TaskId } : {}), limit });
      if (values.json) io.out(JSON.stringify(list, null, 2));
      else {
        io.out(['RECEIPT', 'TASK', 'TOOL', 'STATUS', 'ERROR', 'FINISHED'].join('\t'));
        for (const r of list) io.out([r.receipt_id, r.task_id, `${r.tool}@${r.tool_version ?? '?'}`, r.status, r.error?.code ?? '-', r.finished_at].join('\t'));
      }
      return 0;
    } finally {
      await rt.close();
    }
  },
};
