// Which file a command name runs, found as the sandbox will find it (its PATH, its working
// directory), and what that file is. The resolved file is the resource: `./curl`, a symlink to
// curl or a renamed copy of it in the workspace are curl, recognized by content (sha256 of
// files of the same size in the system's PATH directories), not by the name the script used.
import { createHash } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
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

/** System programs by size, then by digest when asked: built once per process, lazily. */
class SystemIndex {
  #bySize: Map<number, string[]> | null = null;
  readonly #digests = new Map<string, string>();

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

  #digest(p: string): string | null {
    const known = this.#digests.get(p);
    if (known) return known;
    try {
      const d = createHash('sha256').update(readFileSync(p)).digest('hex');
      this.#digests.set(p, d);
      return d;
    } catch {
      return null;
    }
  }

  /** The system program with the same bytes as `file`, if any. */
  identical(file: string): string | null {
    this.#bySize ??= this.#build();
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return null;
    }
    const candidates = this.#bySize.get(size);
    if (!candidates) return null;
    const want = this.#digest(file);
    return candidates.find((c) => this.#digest(c) === want) ?? null;
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
  readonly #known = new Map<string, ResolvedProgram>();

  resolve(name: string): ResolvedProgram {
    let r = this.#known.get(name);
    if (r === undefined) {
      r = this.#lookup(name);
      this.#known.set(name, r);
    }
    return r;
  }

  #lookup(name: string): ResolvedProgram {
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

  #identify(invoked: string, asNamed: string): ResolvedProgram {
    const file = real(invoked);
    const trusted = (p: string) => SYSTEM_PREFIXES.some((s) => p.startsWith(s)) && !this.#writable.some((w) => p.startsWith(w));
    if (trusted(file)) {
      // Named as invoked when that is a system directory entry (npm → npm-cli.js stays npm), else as the file.
      return { name: trusted(dirname(invoked) + '/') ? asNamed : basename(file), path: file, system: true };
    }
    const same = systemIndex.identical(file);
    return same ? { name: basename(same), path: file, system: true } : { name: basename(invoked), path: file, system: false };
  }
}
