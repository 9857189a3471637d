// System calls Node has no binding for (renameat2, openat), called in libc through koffi: a
// maintained FFI with prebuilt binaries in its per-platform packages, no compiler and no install
// script needed (a hand-written N-API addon would need a toolchain at install). Callers fall
// back to their node:fs way when a function is unavailable (another libc, no koffi).
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import type * as Koffi from 'koffi';

let koffi: typeof Koffi | null | undefined;
let libc: ReturnType<typeof Koffi.load> | null = null;
const functions = new Map<string, unknown>();

/**
 * The libc function of a C `signature`, loaded once per process (like a required module: a
 * stateless binding); null when koffi or the function is unavailable here.
 */
export function libcFunction<F>(signature: string): F | null {
  if (functions.has(signature)) return functions.get(signature) as F | null;
  let fn: F | null = null;
  try {
    if (koffi === undefined) {
      koffi = createRequire(import.meta.url)('koffi') as typeof Koffi;
      libc = koffi.load('libc.so.6');
    }
    if (koffi !== null && libc !== null) fn = libc.func(signature) as F;
  } catch {
    if (koffi === undefined) koffi = null;
    fn = null;
  }
  functions.set(signature, fn);
  return fn;
}

const errnoNames = new Map<number, string>(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/** The errno of the last libc call made through koffi, by name (`ENOENT`, …; `E<n>` if unknown). */
export function lastErrno(): { readonly code: string; readonly errno: number } {
  const n = koffi ? koffi.errno() : 0;
  return { code: errnoNames.get(n) ?? `E${n}`, errno: n };
}

/** The failure as node:fs throws it: an Error with the errno name in `code`, `errno` and `syscall`. */
export function errnoError(syscall: string, what: string, e: { readonly code: string; readonly errno: number }): NodeJS.ErrnoException {
  const err = new Error(`${syscall} ${what}: ${e.code}`) as NodeJS.ErrnoException;
  err.code = e.code;
  err.errno = -e.errno;
  err.syscall = syscall;
  return err;
}
