// What an attacker with the database in hand does, the receipts' triggers dropped first: on
// either backend through one small SQL surface. The rewrite is the strong one: the forged
// receipt's task chain is sealed again from it on, the task heads and the ledger columns are
// recomputed, so the per-task chain check and the ledger's own consistency both pass; only a
// checkpoint signed outside the database can tell.
import Database from 'better-sqlite3';
import pg from 'pg';
import { bodyOf, unsealCanonical, type Digest, type ReceiptBody } from '../../../src/protocol/index.js';
import { sealLink } from '../../../src/store/chain-check.js';
import { ledgerStep } from '../../../src/store/index.js';

export interface Sql {
  query<R>(text: string, params?: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/** SQLite through better-sqlite3 (the runtime closed); `$n` placeholders become `?`, in order. */
export function sqliteSql(file: string): Sql {
  const db = new Database(file);
  return {
    query: async <R>(text: string, params: readonly unknown[] = []): Promise<R[]> => {
      const st = db.prepare(text.replace(/\$\d+/g, '?'));
      return st.reader ? (st.all(...params) as R[]) : (st.run(...params), []);
    },
    close: async () => void db.close(),
  };
}

export async function pgSql(url: string): Promise<Sql> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return {
    query: async <R>(text: string, params: readonly unknown[] = []): Promise<R[]> => (await c.query(text, [...params])).rows as R[],
    close: () => c.end(),
  };
}

export async function dropTriggers(sql: Sql, kind: 'sqlite' | 'postgres'): Promise<void> {
  if (kind === 'sqlite') {
    await sql.query('DROP TRIGGER receipts_immutable_update');
    await sql.query('DROP TRIGGER receipts_immutable_delete');
  } else {
    await sql.query('DROP TRIGGER receipts_immutable_row ON receipts');
    await sql.query('DROP TRIGGER receipts_immutable_truncate ON receipts');
  }
}

interface Row {
  seq: number;
  receipt_id: string;
  task_id: string;
  digest: string;
  body: string;
  ledger_pos: number;
}

async function rows(sql: Sql): Promise<Row[]> {
  return (await sql.query<Row>('SELECT seq, receipt_id, task_id, digest, body, ledger_pos FROM receipts ORDER BY ledger_pos')).map((r) => ({ ...r, seq: Number(r.seq), ledger_pos: Number(r.ledger_pos) }));
}

/** Makes the task heads and the ledger's head row name the last receipts that remain. */
async function alignHeads(sql: Sql): Promise<void> {
  const all = await rows(sql);
  const tasks = await sql.query<{ task_id: string }>('SELECT task_id FROM tasks');
  for (const { task_id } of tasks) {
    const mine = all.filter((r) => r.task_id === task_id);
    await sql.query('UPDATE tasks SET head_digest = $1, receipt_count = $2 WHERE task_id = $3', [mine[mine.length - 1]?.digest ?? null, mine.length, task_id]);
  }
  const last = (await sql.query<{ ledger_pos: number; ledger: string }>('SELECT ledger_pos, ledger FROM receipts ORDER BY ledger_pos DESC LIMIT 1'))[0];
  await sql.query('UPDATE audit_ledger SET pos = $1, head = $2 WHERE id = 1', [last ? Number(last.ledger_pos) : 0, last?.ledger ?? null]);
}

/** Removes the last `n` receipts and rolls every head back to what remains: a tail lost cleanly. */
export async function dropTail(sql: Sql, n: number): Promise<void> {
  const all = await rows(sql);
  for (const r of all.slice(-n)) await sql.query('DELETE FROM receipts WHERE seq = $1', [r.seq]);
  await alignHeads(sql);
}

/** Rewrites the receipt at ledger position `pos` (its result forged) and seals everything after it again. */
export async function rewriteAndReseal(sql: Sql, pos: number): Promise<void> {
  const all = await rows(sql);
  const heads = new Map<string, Digest | null>();
  let ledger: string | null = null;
  for (const r of all) {
    const stored = bodyOf(unsealCanonical(r.body, r.digest as Digest, r.receipt_id));
    const { prev_receipt_digest: _prev, ...rest } = stored;
    const body: Omit<ReceiptBody, 'prev_receipt_digest'> = r.ledger_pos === pos ? { ...rest, result: { forged: true } } : rest;
    const { row } = sealLink(body, heads.get(r.task_id) ?? null);
    heads.set(r.task_id, row.digest as Digest);
    ledger = ledgerStep(ledger, row.digest);
    await sql.query('UPDATE receipts SET receipt_id = $1, digest = $2, prev_digest = $3, body = $4, ledger = $5 WHERE seq = $6', [row.receipt_id, row.digest, row.prev_digest, row.body, ledger, r.seq]);
  }
  await alignHeads(sql);
}
