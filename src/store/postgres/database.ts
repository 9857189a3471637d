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

export class Database {
  readonly #pool: pg.Pool;
  readonly #stateDir: string;

  constructor(opts: DatabaseOptions) {
    this.#stateDir = opts.stateDir;
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

  #typed(e: unknown, operation: string): unknown {
    return postgresFailure(e, operation, this.#stateDir);
  }

  /** One statement outside a transaction (autocommit). */
  async query<R extends pg.QueryResultRow>(operation: string, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(text, values as unknown[]);
    } catch (e) {
      throw this.#typed(e, operation);
    }
  }

  /**
   * Runs `run` in one transaction (READ COMMITTED unless told) and commits; a serialization
   * failure or a deadlock runs it again (bounded). The connection is released in every case,
   * and thrown away when it broke, so the pool never hands out a dead one.
   */
  async transaction<T>(operation: string, run: (tx: Transaction) => Promise<T>, opts: { readonly isolation?: 'repeatable read'; readonly readOnly?: boolean } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(operation, run, opts);
      } catch (e) {
        const code = e instanceof pg.DatabaseError ? e.code : undefined;
        if (attempt >= ATTEMPTS || code === undefined || !RETRYABLE.has(code)) throw e;
      }
    }
  }

  async #once<T>(operation: string, run: (tx: Transaction) => Promise<T>, opts: { readonly isolation?: 'repeatable read'; readonly readOnly?: boolean }): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (e) {
      throw this.#typed(e, operation);
    }
    // Between two statements of ours the connection may die: the client then emits 'error',
    // which must not end the process; the next statement fails and says so.
    let broken: Error | undefined;
    const onError = (e: Error): void => {
      broken = e;
    };
    client.on('error', onError);
    const undo: (() => void)[] = [];
    let committed = false;
    const query = async <R extends pg.QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<R>> => {
      try {
        return await client.query<R>(text, values as unknown[]);
      } catch (e) {
        if (isPostgresUnavailable(e)) broken ??= e as Error;
        throw this.#typed(e, operation);
      }
    };
    try {
      const mode = `${opts.isolation ? ` ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : ''}${opts.readOnly ? ' READ ONLY' : ''}`;
      await query(`BEGIN${mode}`);
      const value = await run({ query, onAbort: (f) => undo.push(f) });
      await query('COMMIT');
      committed = true;
      return value;
    } finally {
      if (!committed) {
        for (const f of undo.reverse()) f();
        if (broken === undefined) await client.query('ROLLBACK').catch((e: unknown) => void (broken = e as Error));
      }
      client.off('error', onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
