import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import type { Command } from './usage.js';

export const reconcileCommand: Command = {
  name: 'reconcile',
  summary: 'list ambiguous effects and settle them',
  help: `toolgate reconcile [--list] [--json]

Lists effects left ambiguous (a timeout or crash after the effect may have started) and, unless
--list, settles each through its tool's reconcile(): completed or released. Exit 1 when any
effect stays unsettled.`,
  async run(argv, io) {
    const { values } = parse(argv, { ...RUNTIME_OPTIONS, list: { type: 'boolean' }, json: { type: 'boolean' } }, false);
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const rt = openRuntimeWithPolicy(values);
    try {
      if (values.list) {
        const list = rt.listAmbiguous();
        if (values.json) io.out(JSON.stringify(list, null, 2));
        else for (const e of list) io.out(`${e.task_id}\t${e.effect_key}\t${e.tool}@${e.tool_version}\tambiguous since ${e.updated_at}`);
        return list.length === 0 ? 0 : 1;
      }
      const report = await rt.reconcile();
      if (values.json) io.out(JSON.stringify(report, null, 2));
      else {
        io.out(`${report.examined} ambiguous effect(s)`);
        for (const e of report.entries) io.out(`${e.task_id}\t${e.effect_key}\t${e.tool}@${e.tool_version}\t${e.settled}${e.reason ? ` (${e.reason})` : ''}`);
      }
      return report.entries.every((e) => e.settled !== 'unknown') ? 0 : 1;
    } finally {
      await rt.close();
    }
  },
};
