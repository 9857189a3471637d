// One PostgreSQL store instance's connections: a pool, every statement's failure typed
// (`store_unavailable` for the database or the connection, a defect left as it is), and
// transactions that always end (ROLLBACK, or the connection thrown away when it broke).
import pg from 'pg';
import { postgresFailure, isPostgresUnavailable } from './unavailable.js';

export interface DatabaseOptions {
  readonly url: string;
  /** Connections this store instance may open at once. */
  readonly pool: number;
  /** For `store_unavailable`'s data: the runtime's state dir (where its local state still lives). */
  readonly stateDir: string;
  readonly applicationName?: string;
}

/** 64-bit integers (BIGINT, count(*)) as numbers: every one this store keeps is an epoch ms or a count. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** Serialization failures and deadlocks: the transaction did nothing and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

export interface Transaction {
  query<R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs when the transaction does not commit (rolled back, or its COMMIT failed): undo what was done in memory. */
  onAbort(undo: () => void): void;
}

/**
 * Whether the connection itself was lost (the driver's own error, or the server ending the
 * session: 57P01 terminated by an administrator, 57P02 crash shutdown, 57P03 cannot connect now,
 * class 08 connection exceptions); not a refusal of the statement.
 */
function isConnectionLoss(e: unknown): boolean {
  if (e instanceof pg.DatabaseError) return /^(08|57P0[123])/.test(e.code ?? '');
  return e instanceof Error && isPostgresUnavailable(e);
}

export class Database {
  readonly #pool: pg.Pool;
  readonly #where: { readonly stateDir: string; readonly url: string };

  constructor(opts: DatabaseOptions) {
    this.#where = { stateDir: opts.stateDir, url: opts.url };
    this.#pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.pool,
      // Every commit is durable before it is answered, whatever the server's default.
      options: '-c synchronous_commit=on',
      // A host that hangs inside a transaction does not hold its row locks (a claim, a task head) forever.
      idle_in_transaction_session_timeout: 60_000,
      // Generous: a loaded machine is slow; a silent network partition still ends in a typed failure.
      connectionTimeoutMillis: 60_000,
      query_timeout: 120_000,
      keepAlive: true,
      idleTimeoutMillis: 10_000,
      application_name: opts.applicationName ?? 'toolgate',
      types: TYPES,
    });
    // An idle connection that dies (server restart, network) is dropped by the pool; without a
    // listener the event would end the process. The next statement opens a new connection.
    this.#pool.on('error', () => undefined);
  }

  #typed(e: unknown, operation: string, connecting = false): unknown {
    return postgresFailure(e, operation, this.#where, connecting);
  }

  /** A connection from the pool; failing to get one is `store_unavailable`, whatever the server said. */
  async #connect(operation: string): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (e) {
      throw this.#typed(e, operation, true);
    }
  }

  /** One statement on a pooled connection; the connection is thrown away when the statement broke it. */
  async #statement<R extends pg.QueryResultRow>(operation: string, text: string, values: readonly unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.#connect(operation);
    let broken: Error | undefined;
    const onError = (e: Error): void => {
      broken ??= e;
    };
    client.on('error', onError);
    try {
      return await client.query<R>(text, values as unknown[]);
    } catch (e) {
      if (isPostgresUnavailable(e)) broken ??= e instanceof Error ? e : new Error(String(e));
      throw e;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * One statement outside a transaction (autocommit). Not run again on a failure: a write may
   * have been applied before its connection died.
   */
  async query<R extends pg.QueryResultRow>(operation: string, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.#statement<R>(operation, text, values);
    } catch (e) {
      throw this.#typed(e, operation);
    }
  }

  /**
   * A read: on a connection that turns out dead (a pooled one the server ended while idle, the
   * pool not told yet) it runs once more on a fresh one, as reading twice changes nothing.
   */
  async read<R extends pg.QueryResultRow>(operation: string, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.#statement<R>(operation, text, values);
    } catch (e) {
      if (!isConnectionLoss(e)) throw this.#typed(e, operation);
    }
    return this.query<R>(operation, text, values);
  }

  /**
   * Runs `run` in one transaction (READ COMMITTED unless told) and commits. It runs again
   * (bounded) after a serialization failure or a deadlock, and once when the connection turns
   * out dead at BEGIN (a pooled connection the server ended while idle: nothing was done). A
   * connection lost later fails the call typed: the caller decides (a claim is simply not made;
   * a commit lost during COMMIT may or may not have committed). The connection is released in
   * every case, and thrown away when it broke, so the pool never hands it out again.
   */
  async transaction<T>(operation: string, run: (tx: Transaction) => Promise<T>, opts: { readonly isolation?: 'repeatable read'; readonly readOnly?: boolean } = {}): Promise<T> {
    let reconnected = false;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#once(operation, run, opts);
      if (outcome.ok) return outcome.value;
      const e = outcome.error;
      const code = e instanceof pg.DatabaseError ? e.code : undefined;
      if (attempt < ATTEMPTS && code !== undefined && RETRYABLE.has(code)) continue;
      if (!reconnected && outcome.lostAtBegin) {
        reconnected = true;
        continue;
      }
      // Only the driver's errors are judged; an error of `run` itself (a defect) goes on as it is.
      throw outcome.fromDriver ? this.#typed(e, operation) : e;
    }
  }

  async #once<T>(
    operation: string,
    run: (tx: Transaction) => Promise<T>,
    opts: { readonly isolation?: 'repeatable read'; readonly readOnly?: boolean },
  ): Promise<{ ok: true; value: T } | { ok: false; error: unknown; fromDriver: boolean; lostAtBegin: boolean }> {
    let client: pg.PoolClient;
    try {
      client = await this.#connect(operation);
    } catch (e) {
      // Could not even connect (already typed): running again is not going to help now.
      return { ok: false, error: e, fromDriver: false, lostAtBegin: false };
    }
    // Between two statements of ours the connection may die: the client then emits 'error',
    // which must not end the process; the next statement fails and says so.
    let broken: unknown;
    const onError = (e: Error): void => {
      broken ??= e;
    };
    client.on('error', onError);
    const undo: (() => void)[] = [];
    let begun = false;
    let committed = false;
    let driverError: unknown;
    // Statements fail raw here, so that the retry above can tell what happened; the caller gets them typed.
    const query = async <R extends pg.QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<R>> => {
      try {
        return await client.query<R>(text, values as unknown[]);
      } catch (e) {
        driverError = e;
        if (isPostgresUnavailable(e)) broken ??= e;
        throw e;
      }
    };
    try {
      const mode = `${opts.isolation ? ` ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : ''}${opts.readOnly ? ' READ ONLY' : ''}`;
      await query(`BEGIN${mode}`);
      begun = true;
      const value = await run({ query, onAbort: (f) => undo.push(f) });
      await query('COMMIT');
      committed = true;
      return { ok: true, value };
    } catch (e) {
      return { ok: false, error: e, fromDriver: e === driverError, lostAtBegin: !begun && isConnectionLoss(e) };
    } finally {
      if (!committed) {
        for (const f of undo.reverse()) f();
        if (broken === undefined) await client.query('ROLLBACK').catch((e: unknown) => void (broken = e));
      }
      client.off('error', onError);
      client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)));
    }
  }

  #closed: Promise<void> | null = null;

  /** Ends every connection (once: a second close waits for the first). */
  close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    return this.#closed;
  }
}
