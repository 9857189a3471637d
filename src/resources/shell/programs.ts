// Which file a command name runs, found as the sandbox will find it (its PATH, its working
// directory), and what that file is. The resolved file is the resource: `./curl`, a symlink to
// curl or a renamed copy of it in the workspace are curl, recognized by content (sha256 of
// files of the same size in the system's PATH directories), not by the name the script used.
import { createHash } from 'node:crypto';
import { accessSync, constants, createReadStream, readdirSync, realpathSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { LRUCache } from 'lru-cache';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

export interface ResolvedProgram {
  /** What the program is: its name in a system directory, or the system program a copy is identical to. */
  readonly name: string;
  /** The file that runs (symlinks followed); null when nothing was found. */
  readonly path: string | null;
  /** False: the file is not a system program (a script or binary in the workspace, unlike any in PATH). */
  readonly system: boolean;
}

/** Read-only system locations in the sandbox: a file here is what its name says. */
const SYSTEM_PREFIXES = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/opt/', '/etc/alternatives/'];

export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function executableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Digests kept: enough for every program of a system's PATH and the copies a task makes. */
const DIGESTS_KEPT = 4_096;

/** A file's identity and state: a write, a rename over it or a metadata change gives another key. */
function stateKey(p: string): { key: string; size: number } | null {
  try {
    const st = statSync(p, { bigint: true });
    if (!st.isFile()) return null;
    return { key: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${p}`, size: Number(st.size) };
  } catch {
    return null;
  }
}

async function sha256Of(p: string): Promise<string | null> {
  try {
    const hash = createHash('sha256');
    await pipeline(createReadStream(p), hash);
    return hash.digest('hex');
  } catch {
    return null;
  }
}

/**
 * System programs by size, then by digest when asked: the size table is built once per process
 * (lazily); digests are read without blocking the event loop (a copy of node is ~100 MB) and kept
 * by the file's state, never by its path alone: a workspace file rewritten since it was hashed
 * (a copy of `true` overwritten with curl) is hashed again, so it cannot keep an old identity.
 */
class SystemIndex {
  #bySize: Map<number, string[]> | null = null;
  readonly #digests = new LRUCache<string, string>({ max: DIGESTS_KEPT });

  #build(): Map<number, string[]> {
    const bySize = new Map<number, string[]>();
    for (const dir of SANDBOX_PATH.split(':')) {
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch {
        continue;
      }
      for (const n of names) {
        const p = join(dir, n);
        try {
          const st = statSync(p);
          if (!st.isFile()) continue;
          const list = bySize.get(st.size) ?? [];
          list.push(p);
          bySize.set(st.size, list);
        } catch {
          // gone or unreadable
        }
      }
    }
    return bySize;
  }

  async #digest(p: string): Promise<string | null> {
    const state = stateKey(p);
    if (!state) return null;
    const known = this.#digests.get(state.key);
    if (known) return known;
    const d = await sha256Of(p);
    // Changed while it was read: the digest belongs to neither state, so it is not kept.
    if (d !== null && stateKey(p)?.key === state.key) this.#digests.set(state.key, d);
    return d;
  }

  /** The system program with the same bytes as `file`, if any. */
  async identical(file: string): Promise<string | null> {
    this.#bySize ??= this.#build();
    const state = stateKey(file);
    const candidates = state ? this.#bySize.get(state.size) : undefined;
    if (!candidates) return null;
    const want = await this.#digest(file);
    if (want === null) return null;
    for (const c of candidates) if ((await this.#digest(c)) === want) return c;
    return null;
  }
}

const systemIndex = new SystemIndex();

export class ProgramResolver {
  readonly #dirs: readonly string[];
  readonly #cwd: string;
  readonly #writable: readonly string[];

  /**
   * `path` is the PATH the command will run with; `cwd` its working directory; `writable` the
   * directories the command (or the model) can write, whose files are never taken by location.
   */
  constructor(o: { readonly path?: string; readonly cwd: string; readonly writable?: readonly string[] }) {
    this.#dirs = (o.path ?? SANDBOX_PATH).split(':').filter(Boolean);
    this.#cwd = o.cwd;
    this.#writable = (o.writable ?? []).map((w) => (w.endsWith('/') ? w : `${w}/`));
  }

  /** One line names the same programs again and again (cat, grep): each is looked up once. */
  readonly #known = new Map<string, Promise<ResolvedProgram>>();

  resolve(name: string): Promise<ResolvedProgram> {
    let r = this.#known.get(name);
    if (r === undefined) {
      r = this.#lookup(name);
      this.#known.set(name, r);
    }
    return r;
  }

  async #lookup(name: string): Promise<ResolvedProgram> {
    if (name.includes('/')) {
      const p = isAbsolute(name) ? name : resolve(this.#cwd, name);
      return executableFile(p) ? this.#identify(p, basename(p)) : { name: basename(name), path: null, system: false };
    }
    for (const dir of this.#dirs) {
      const p = resolve(this.#cwd, dir, name);
      if (executableFile(p)) return this.#identify(p, name);
    }
    return { name, path: null, system: false };
  }

  async #identify(invoked: string, asNamed: string): Promise<ResolvedProgram> {
    const file = real(invoked);
    const trusted = (p: string) => SYSTEM_PREFIXES.some((s) => p.startsWith(s)) && !this.#writable.some((w) => p.startsWith(w));
    if (trusted(file)) {
      // Named as invoked when that is a system directory entry (npm → npm-cli.js stays npm), else as the file.
      return { name: trusted(dirname(invoked) + '/') ? asNamed : basename(file), path: file, system: true };
    }
    const same = await systemIndex.identical(file);
    return same ? { name: basename(same), path: file, system: true } : { name: basename(invoked), path: file, system: false };
  }
}
