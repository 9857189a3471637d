import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';
import type { UnsettledEntry } from '../runtime/index.js';

function age(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function line(e: UnsettledEntry): string {
  const what = e.state === 'ambiguous' ? 'ambiguous' : e.owner_alive ? 'sent, still running' : 'sent, its runtime is gone';
  return `${e.task_id}\t${e.effect_key}\t${e.tool}@${e.tool_version}\t${what}\tage ${age(e.age_ms)} (since ${e.updated_at})`;
}

/** The one record KEY names: an effect key (k:…, e:…, auto:…) or an idempotency key, in --task if given. */
function pick(list: readonly UnsettledEntry[], key: string, task: string | undefined): UnsettledEntry {
  const hits = list.filter((e) => (task === undefined || e.task_id === task) && (e.effect_key === key || e.idempotency_key === key || e.logical_effect_id === key));
  if (hits.length === 0) throw new UsageError(`no unsettled effect ${key}${task ? ` in task ${task}` : ''} (see toolgate reconcile --list)`);
  if (hits.length > 1) throw new UsageError(`${key} names effects in several tasks (${hits.map((h) => h.task_id).join(', ')}); add --task`);
  return hits[0] as UnsettledEntry;
}

export const reconcileCommand: Command = {
  name: 'reconcile',
  summary: 'list unsettled effects, settle them through their tool, or by hand',
  help: `toolgate reconcile [--list] [--json]
toolgate reconcile KEY --settle completed|released --reason TEXT [--task TASK] [--json]

Lists effects that wait for reconcile: ambiguous ones (a timeout or crash after the effect may
have started) and sent ones (with whether the runtime that sent them still runs), each with its
age. Without --list, settles every one whose runtime is gone through its tool's reconcile():
completed (a retry replays the recovered receipt) or released (a retry runs it).

An effect reconcile cannot decide (e.g. an interrupted shell.exec) is settled by hand: KEY is
its effect key or idempotency key; --settle completed means it happened (a retry replays),
released means it did not (a retry runs it); --reason is recorded in the settling receipt.

Exit 1 when any effect stays unsettled.

Options: --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      ...RUNTIME_OPTIONS,
      list: { type: 'boolean' },
      json: { type: 'boolean' },
      settle: { type: 'string' },
      reason: { type: 'string' },
      task: { type: 'string' },
    });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError('one KEY at a time');
    const key = positionals[0];
    if ((key === undefined) !== (values.settle === undefined)) throw new UsageError('KEY and --settle go together');
    if (values.settle !== undefined && values.settle !== 'completed' && values.settle !== 'released') throw new UsageError('--settle takes completed or released');
    if (values.settle !== undefined && (values.reason === undefined || values.reason.trim() === '')) throw new UsageError('--settle needs --reason TEXT');
    const rt = await openRuntimeWithPolicy(values);
    try {
      if (key !== undefined && values.settle !== undefined) {
        const e = pick(await rt.listUnsettled(), key, values.task);
        const receipt = await rt.settle(e.task_id, e.effect_key, values.settle, values.reason as string);
        io.out(values.json ? JSON.stringify(receipt, null, 2) : `${e.task_id}\t${e.effect_key}\tsettled ${values.settle} by operator\t${receipt.receipt_id}`);
        return 0;
      }
      if (values.list) {
        const list = await rt.listUnsettled();
        if (values.json) io.out(JSON.stringify(list, null, 2));
        else for (const e of list) io.out(line(e));
        return list.length === 0 ? 0 : 1;
      }
      const report = await rt.reconcile();
      if (values.json) io.out(JSON.stringify(report, null, 2));
      else {
        io.out(`${report.examined} unsettled effect(s)`);
        for (const e of report.entries) io.out(`${e.task_id}\t${e.effect_key}\t${e.tool}@${e.tool_version}\t${e.settled}${e.reason ? ` (${e.reason})` : ''}`);
      }
      return report.entries.every((e) => e.settled !== 'unknown') && (await rt.listUnsettled()).length === 0 ? 0 : 1;
    } finally {
      await rt.close();
    }
  },
};
