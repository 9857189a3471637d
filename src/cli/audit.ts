import { readFile } from 'node:fs/promises';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { UsageError, type Command } from './usage.js';
import type { TaskId } from '../protocol/index.js';
import { readCheckpointFile, verifyLedger } from '../store/index.js';
import { checkTaskLinks } from '../tasks/index.js';

/** A checkpoint as a client may have kept it: the object itself, a result's `_meta`, or a whole result. */
function checkpointIn(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  if ('toolgate/checkpoint' in v) return v['toolgate/checkpoint'];
  if (typeof v['_meta'] === 'object' && v['_meta'] !== null && 'toolgate/checkpoint' in v['_meta']) return (v['_meta'] as Record<string, unknown>)['toolgate/checkpoint'];
  return value;
}

async function readKept(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (e) {
    throw new UsageError(`--checkpoint ${file}: ${(e as Error).message}`);
  }
}

export const auditCommand: Command = {
  name: 'audit',
  summary: 'verify the receipt hash chains and the ledger against a signed checkpoint',
  help: `toolgate audit verify [--task ID] [--checkpoint FILE] [--json]

Recomputes every receipt's digest and the link to its task's previous receipt; names the
first broken link of each task. Then recomputes the ledger (one digest over every receipt in
commit order) and checks it against the latest signed checkpoint the runtime wrote, or with
--checkpoint against one a client kept (a checkpoint object, or the _meta of a tool result): a
lost tail, an older copy of the database or a rewritten receipt is reported (docs/audit.md).
Exit 0 when everything holds, 1 otherwise.

Options: --workspace DIR, --state-dir DIR, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...RUNTIME_OPTIONS, task: { type: 'string' }, checkpoint: { type: 'string' }, json: { type: 'boolean' } });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    if (positionals[0] !== 'verify' || positionals.length > 1) throw new UsageError('audit verify [--task ID] [--checkpoint FILE]');
    const rt = await openRuntimeWithPolicy(values);
    try {
      const report = await rt.store.verifyChain(values.task as TaskId | undefined);
      // The links between parent and child chains (docs/tasks.md), when the store has subtasks.
      const links = values.task === undefined ? await checkTaskLinks(rt.store) : null;
      let ledger = null;
      if (values.task === undefined && rt.audit !== null) {
        const source = values.checkpoint ?? rt.audit.file;
        const kept = values.checkpoint !== undefined
          ? checkpointIn(await readKept(values.checkpoint))
          : await readCheckpointFile(rt.audit.file);
        ledger = await verifyLedger(rt.store, rt.audit.key.keyId, kept === null ? null : { source, value: kept });
      }
      // Asked to check a kept checkpoint without the key that signs them: that check cannot be done.
      const unchecked = rt.audit === null && values.checkpoint !== undefined;
      const ok = report.ok && (links?.ok ?? true) && (ledger?.ok ?? true) && !unchecked;
      const unavailable = rt.audit === null ? rt.auditUnavailable : null;
      if (values.json) io.out(JSON.stringify({ ...report, ok, ...(links === null || links.subtasks === 0 ? {} : { task_links: links }), ...(ledger === null ? {} : { ledger }), ...(unavailable === null ? {} : { checkpoints_unavailable: unavailable }) }, null, 2));
      else {
        io.out(`${report.ok ? 'ok' : 'BROKEN'}: ${report.receipts} receipts in ${report.tasks} tasks`);
        for (const b of report.broken) io.out(`task ${b.task_id}: receipt #${b.seq} ${b.receipt_id}: ${b.reason}`);
        if (links !== null && links.subtasks > 0) io.out(`${links.ok ? 'ok' : 'BROKEN'}: ${links.links} links between parent and child chains of ${links.subtasks} subtasks`);
        for (const b of links?.broken ?? []) io.out(`subtask ${b.task_id}: ${b.link}: ${b.reason}`);
        if (ledger !== null) {
          io.out(`${ledger.ok ? 'ok' : 'BROKEN'}: ledger of ${ledger.receipts} receipts`);
          for (const b of ledger.broken) io.out(`ledger position ${b.pos}: ${b.reason}`);
          const c = ledger.checkpoint;
          if (c === null) io.out('no checkpoint: the ledger is not anchored yet (docs/audit.md)');
          else io.out(c.ok ? `ok: checkpoint ${c.source} (${c.pos} receipts, signed ${c.at}) holds` : `BROKEN: checkpoint ${c.source}: ${c.reason ?? ''}`);
        }
        if (unavailable !== null) io.out(`${unchecked ? 'NOT CHECKED' : 'no checkpoints'}: ${unavailable}`);
      }
      return ok ? 0 : 1;
    } finally {
      await rt.close();
    }
  },
};
