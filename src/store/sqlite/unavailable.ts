import { ToolgateError } from '../../protocol/index.js';

// SQLite result codes (and errno values) that say the state dir cannot hold or give back data:
// full, read-only, I/O error, missing, locked past busy_timeout, damaged. Anything else (a
// constraint, a misuse) is a defect and is left as it is.
const UNAVAILABLE = /^(SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|CORRUPT|NOTADB|PROTOCOL|NOLFS|PERM|AUTH)|ENOSPC|EROFS|EIO|EDQUOT|EACCES|EPERM|ENOENT)/;

function codeOf(e: unknown): string | null {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : null;
}

/** Whether an error says the store's storage failed (rather than a defect). */
export function isStorageFailure(e: unknown): boolean {
  const code = codeOf(e);
  return code !== null && UNAVAILABLE.test(code);
}

/** The typed form of a storage failure; other errors pass through unchanged. */
export function storeFailure(e: unknown, operation: string, dir: string): unknown {
  if (ToolgateError.isInstance(e) || !isStorageFailure(e)) return e;
  return new ToolgateError('store_unavailable', `the state store cannot ${operation}: ${e instanceof Error ? e.message : String(e)}`, {
    operation,
    cause_code: codeOf(e),
    state_dir: dir,
  }, { cause: e });
}

/** Runs a store operation, turning a storage failure into `store_unavailable`. */
export function guarded<T>(operation: string, dir: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    throw storeFailure(e, operation, dir);
  }
}
