// What stops a command before it serves because of the host rather than the command line — the
// workspace, the state dir and its database, the token file, the port — as one start-up error
// line naming the problem and the fix (docs/cli.md "Start-up errors"). The library keeps its
// runtime codes (`store_unavailable`); only the CLI, which knows the flag to change, adds the fix.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError, ToolgateError } from '../protocol/index.js';

function errnoOf(e: unknown): string | null {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : null;
}

/** Refuses a workspace that is missing or not a directory before anything opens. */
export function checkWorkspace(dir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (e) {
    const code = errnoOf(e);
    const what = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : `cannot be opened (${(e as Error).message})`;
    throw new StartupError('invalid_workspace', `the workspace ${dir} ${what}; fix: give the project's directory with --workspace DIR (or run toolgate from it)`, { workspace: dir, cause_code: code }, { cause: e });
  }
  if (!isDirectory) {
    throw new StartupError('invalid_workspace', `the workspace ${dir} is a file, not a directory; fix: give the project's directory with --workspace DIR (or run toolgate from it)`, { workspace: dir, cause_code: 'ENOTDIR' });
  }
}

/** The fix for a state dir or database the store could not use, by the store's operation and cause. */
function stateFix(stateDir: string, operation: string, cause: string | null): string {
  const db = join(stateDir, 'toolgate.db');
  if (cause === 'SQLITE_CORRUPT' || cause === 'SQLITE_NOTADB') {
    return `the database ${db} is damaged and was left as it is; fix: move it aside for inspection (mv ${db} ${db}.damaged, and its -wal file if any) so the next run starts a fresh one, or give another --state-dir`;
  }
  if (operation === 'create the state dir') return `the state dir ${stateDir} cannot be created; fix: give a writable directory with --state-dir DIR`;
  return `the state dir ${stateDir} cannot be used; fix: make it writable (and its disk not full), or give another --state-dir DIR`;
}

/** The fix for a PostgreSQL store that cannot be used, by what the server or the connection said. */
function databaseFix(database: string, cause: string | null): string {
  if (cause === '3D000') return `the database ${database} does not exist; fix: create it (createdb), or give another --store-url URL`;
  if (cause?.startsWith('28')) return `the database ${database} refused the credentials; fix: give the right user and password in --store-url URL (or TOOLGATE_STORE_URL)`;
  return `the database ${database} cannot be reached or used; fix: start the server and check --store-url URL (or TOOLGATE_STORE_URL, or store.url in the configuration)`;
}

/** A runtime that could not open its store, as the start-up error `state_unavailable`; anything else passes through. */
export function startupFaultOfStore(e: unknown): unknown {
  if (!ToolgateError.isInstance(e) || e.code !== 'store_unavailable') return e;
  const data = e.data as { operation: string; cause_code: string | null; state_dir: string; database?: string };
  const fix = data.database !== undefined ? databaseFix(data.database, data.cause_code) : stateFix(data.state_dir, data.operation, data.cause_code);
  return new StartupError('state_unavailable', `${fix} (${e.message})`, {
    state_dir: data.state_dir,
    operation: data.operation,
    cause_code: data.cause_code,
    ...(data.database !== undefined ? { database: data.database } : {}),
  }, { cause: e });
}

/** A token file that cannot be read, as `invalid_token_file`. */
export function tokenFileFault(file: string, e: unknown): StartupError {
  const code = errnoOf(e);
  const what = code === 'ENOENT' ? 'does not exist' : `cannot be read (${(e as Error).message})`;
  return new StartupError('invalid_token_file', `--token-file ${file} ${what}; fix: write the bearer token into it (e.g. openssl rand -hex 32 > ${file}) or give another file`, { file, cause_code: code }, { cause: e });
}

/** A listener that could not start, as `port_unavailable`; anything else passes through. */
export function portFault(host: string, port: number, e: unknown): unknown {
  const code = errnoOf(e);
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return e;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const fix =
    code === 'EADDRINUSE'
      ? `${where} is already in use; fix: stop what listens there, or give another port (--http 0 picks a free one)`
      : code === 'EACCES'
        ? `${where} is not allowed to this user; fix: give a port above 1023 (--http 0 picks a free one)`
        : `${host} is not an address of this machine; fix: give --host 127.0.0.1 or one of this machine's addresses`;
  return new StartupError('port_unavailable', fix, { host, port, cause_code: code }, { cause: e });
}
