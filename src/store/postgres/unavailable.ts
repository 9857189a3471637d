import pg from 'pg';
import { ToolgateError } from '../../protocol/index.js';

// SQLSTATE classes that say the database cannot hold or give back data right now: connection
// exceptions (08), insufficient resources such as a full disk or too many connections (53), an
// operator or crash shutdown (57P), system and I/O errors (58), internal errors such as damaged
// data (XX), a database that does not exist (3D), refused credentials (28), and a read-only
// server (25006, a standby). Anything else (a constraint, a syntax error) is a defect and is left
// as it is.
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|58|XX|3D|28|25006)/;

function codeOf(e: unknown): string | null {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : null;
}

/**
 * Whether an error that a pg call raised says the database is unavailable. The server's own
 * errors (`DatabaseError`) carry a SQLSTATE and are judged by its class; every other error from
 * the driver is about the connection itself (refused, reset, ended mid-query, timed out), so it
 * is one too, with or without an errno code.
 */
export function isPostgresUnavailable(e: unknown): boolean {
  if (ToolgateError.isInstance(e)) return false;
  if (e instanceof pg.DatabaseError) return UNAVAILABLE_SQLSTATE.test(e.code ?? '');
  return e instanceof Error;
}

/** A database URL as it may be shown and logged: without its password. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * The typed form of a failure of the database or the connection; other errors pass through
 * unchanged. `connecting`: the error came while opening a connection, which nothing of ours can
 * have caused, so whatever its SQLSTATE (55000 for a database that no longer allows
 * connections, say) the database is unavailable.
 */
export function postgresFailure(e: unknown, operation: string, where: { readonly stateDir: string; readonly url: string }, connecting = false): unknown {
  if (!(isPostgresUnavailable(e) || (connecting && !ToolgateError.isInstance(e)))) return e;
  return new ToolgateError(
    'store_unavailable',
    `the PostgreSQL store cannot ${operation}: ${e instanceof Error ? e.message : String(e)}`,
    { operation, cause_code: codeOf(e), state_dir: where.stateDir, database: redactedUrl(where.url) },
    { cause: e },
  );
}
