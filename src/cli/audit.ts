import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';
import type { TaskId } from '../protocol/index.js';
import { checkTaskLinks } from '../tasks/index.js';

export const auditCommand: Command = {
  name: 'audit',
  summary: 'verify the receipt hash chains',
  help: `toolgate audit verify [--task ID] [--json]

Recomputes every receipt's digest and the link to its task's previous receipt; names the
first broken link of each task. Exit 0 when every chain holds, 1 otherwise.

Options: --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, task: { type: 'string' }, json: { type: 'boolean' } });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    if (positionals[0] !== 'verify' || positionals.length > 1) throw new UsageError('audit verify [--task ID]');
    const rt = await openRuntimeWithPolicy(values);
    try {
      const report = await rt.store.verifyChain(values.task as TaskId | undefined);
      // The links between parent and child chains (docs/tasks.md), when the store has subtasks.
      const links = values.task === undefined ? await checkTaskLinks(rt.store) : null;
      const ok = report.ok && (links?.ok ?? true);
      if (values.json) io.out(JSON.stringify(links === null || links.subtasks === 0 ? report : { ...report, ok, task_links: links }, null, 2));
      else {
        io.out(`${report.ok ? 'ok' : 'BROKEN'}: ${report.receipts} receipts in ${report.tasks} tasks`);
        for (const b of report.broken) io.out(`task ${b.task_id}: receipt #${b.seq} ${b.receipt_id}: ${b.reason}`);
        if (links !== null && links.subtasks > 0) io.out(`${links.ok ? 'ok' : 'BROKEN'}: ${links.links} links between parent and child chains of ${links.subtasks} subtasks`);
        for (const b of links?.broken ?? []) io.out(`subtask ${b.task_id}: ${b.link}: ${b.reason}`);
      }
      return ok ? 0 : 1;
    } finally {
      await rt.close();
    }
  },
};
