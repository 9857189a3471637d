// The raw candidate list of a git work tree, kept between searches while nothing that decides
// it has changed: git's own untracked cache, done outside the user's index. What decides it:
// the index; the entries of every directory git's walk reads (a created, deleted or renamed
// entry moves its directory's mtime); every ignore file (.gitignore files, info/exclude, the
// global excludes file) and git's config files. Any difference drops the entry. The directories
// and the .gitignore files in them are watched with inotify where it can be used (tree-watch.ts:
// one read() a lookup); what lies outside the workspace, and everything where inotify cannot be
// used, is lstat'ed on every lookup (a few thousand directories: ~10 ms).
//
// Racy timestamps: a change in the same clock tick as a recorded mtime would not move it. So
// a list is kept only if every recorded time is older than the start of the listing by
// RACY_MARGIN_MS; a tree that changed just before is listed again on the next search.
import { closeSync, constants, lstatSync, openSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { procPath, type GitLocations, type Workspace } from '../../resources/index.js';
import type { CandidateSet } from './candidate-set.js';
import { TreeWatch, watchableFileSystem } from './tree-watch.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
export const RACY_MARGIN_MS = 1000;
const MAX_FILTERED = 16;
/** lstats between two turns of the event loop in a yielding check (~0.3–0.5 ms). */
const CHECK_SLICE = 256;

export interface RawList {
  /** Regular files in path order. */
  readonly files: string[];
  readonly ignored: number;
  /** Directories git reported as wholly ignored (`dir/`), workspace-relative. */
  readonly ignoredDirs: readonly string[];
}

export interface Watched {
  readonly path: string;
  readonly dev: number;
  /** inode, size, mtime, ctime (ms); all NaN when the path is missing. */
  readonly ino: number;
  readonly size: number;
  readonly mtime: number;
  readonly ctime: number;
}

function watch(path: string): Watched {
  // Millisecond times suffice: a kept list is at least RACY_MARGIN_MS older than any change.
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return { path, dev: Number.NaN, ino: Number.NaN, size: Number.NaN, mtime: Number.NaN, ctime: Number.NaN };
  return { path, dev: st.dev, ino: st.ino, size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs };
}

function unchanged(w: Watched): boolean {
  const st = lstatSync(w.path, { throwIfNoEntry: false });
  if (st === undefined) return Number.isNaN(w.ino);
  return st.ino === w.ino && st.size === w.size && st.mtimeMs === w.mtime && st.ctimeMs === w.ctime;
}

/**
 * Everything whose change could change the list: `recorded` is all of it as lstat'ed now (for
 * the racy check); `checked` is what each lookup lstats again, `tree` the inotify watch of the
 * rest (null: everything is checked).
 */
export interface WatchSet {
  readonly recorded: readonly Watched[];
  readonly checked: readonly Watched[];
  readonly tree: TreeWatch | null;
}

/** Everything whose change could change the list, recorded now; the tree watched where it can be. */
export function watchSet(root: string, rootFd: number, where: GitLocations, ignoredDirs: readonly string[], includeIgnored: boolean, inotify = true): WatchSet {
  const inTree: Watched[] = [];
  const out: Watched[] = [];
  const skip = new Set(includeIgnored ? [] : ignoredDirs.map((d) => d.replace(/\/$/, '')));
  let tree = inotify && watchableFileSystem(root) ? TreeWatch.open() : null;
  const local = new Map<number, boolean>();
  /** Each watch is added before the lstat: a change after the lstat is an event, one before it a recent time. */
  const record = (abs: string, add: () => boolean): void => {
    if (tree && !add()) {
      tree.close();
      tree = null;
    }
    const w = watch(abs);
    inTree.push(w);
    if (tree && !Number.isNaN(w.dev) && !local.has(w.dev)) local.set(w.dev, watchableFileSystem(abs));
  };
  // Directories are entered through their parent's fd without following links: a directory
  // swapped for a link (to the outside, to /) is not walked.
  const walk = (dirfd: number, abs: string, rel: string): void => {
    record(abs, () => (tree as TreeWatch).addDirectory(dirfd));
    let entries;
    try {
      entries = readdirSync(`/proc/self/fd/${dirfd}`, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === '.gitignore') record(join(abs, e.name), () => (tree as TreeWatch).addIgnoreFile(dirfd, e.name));
      else if (e.isDirectory() && e.name !== '.git' && !skip.has(childRel)) {
        let fd: number;
        try {
          fd = openSync(procPath(dirfd, e.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch {
          // Gone or swapped for a link since it was listed: recorded as it is now (its parent's
          // watch sees it come back).
          inTree.push(watch(join(abs, e.name)));
          continue;
        }
        try {
          walk(fd, join(abs, e.name), childRel);
        } finally {
          closeSync(fd);
        }
      }
    }
  };
  walk(rootFd, root, '');
  // Ignore files above the workspace, up to the top of the work tree.
  const up = relative(where.topLevel, root);
  if (up && !up.startsWith('..')) {
    let dir = dirname(root);
    for (let i = 0; i < up.split(sep).length; i++, dir = dirname(dir)) out.push(watch(join(dir, '.gitignore')));
  }
  const xdg = process.env['XDG_CONFIG_HOME'] || join(homedir(), '.config');
  const files = [
    join(where.gitDir, 'index'),
    join(where.gitDir, 'config.worktree'),
    join(where.commonDir, 'config'),
    join(where.commonDir, 'info', 'exclude'),
    join(xdg, 'git', 'config'),
    join(xdg, 'git', 'ignore'),
    join(homedir(), '.gitconfig'),
    '/etc/gitconfig',
  ];
  if (where.excludesFile) files.push(where.excludesFile);
  for (const f of files) out.push(watch(f));
  if (tree && [...local.values()].some((ok) => !ok)) {
    tree.close(); // a mount of a remote file system inside the workspace
    tree = null;
  }
  const recorded = [...inTree, ...out];
  return { recorded, checked: tree ? out : recorded, tree };
}

interface Entry {
  readonly raw: RawList;
  readonly watched: WatchSet;
}

function unchangedSince(w: WatchSet): boolean {
  return !(w.tree?.changed() ?? false) && w.checked.every(unchanged);
}

/** Per tool instance: the last list of each workspace (and include_ignored setting). */
export class CandidateListCache {
  /** Whether kept lists are watched with inotify where it can be used (false: always lstat'ed). */
  readonly inotify: boolean;
  readonly #byWorkspace = new WeakMap<Workspace, Map<boolean, Entry>>();
  /** Filtered lists (include, exclude, generated) of a raw list; gone with it. */
  readonly #filtered = new WeakMap<RawList, Map<string, CandidateSet>>();
  /** Every open inotify instance of a kept list, for close(). */
  readonly #trees = new Set<TreeWatch>();

  constructor(o: { readonly inotify?: boolean } = {}) {
    this.inotify = o.inotify ?? true;
  }

  filtered(raw: RawList, key: string): CandidateSet | undefined {
    return this.#filtered.get(raw)?.get(key);
  }

  keepFiltered(raw: RawList, key: string, set: CandidateSet): void {
    let m = this.#filtered.get(raw);
    if (!m) this.#filtered.set(raw, (m = new Map()));
    if (m.size >= MAX_FILTERED) m.clear();
    m.set(key, set);
  }

  /**
   * The kept list without checking it yet, and the check (which drops the list when anything
   * it depends on changed). The caller may start work on the list before checking it, but may
   * not return anything from it unless the check passes. `confirmYielding` is the same check
   * in slices, giving the event loop a turn between them: run while a ripgrep child searches,
   * it lets the child's output be read as it comes rather than fill the pipe and stop the
   * child until the check (a few thousand lstats) is done.
   */
  peek(ws: Workspace, includeIgnored: boolean): { readonly raw: RawList; confirm(): boolean; confirmYielding(): Promise<boolean> } | null {
    const m = this.#byWorkspace.get(ws);
    const e = m?.get(includeIgnored);
    if (!m || !e) return null;
    const drop = (): false => {
      if (m.get(includeIgnored) === e) {
        m.delete(includeIgnored);
        this.#release(e);
      }
      return false;
    };
    return {
      raw: e.raw,
      confirm: () => unchangedSince(e.watched) || drop(),
      confirmYielding: async () => {
        if (e.watched.tree?.changed()) return drop();
        const checked = e.watched.checked;
        for (let i = 0; i < checked.length; i += CHECK_SLICE) {
          if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
          const end = Math.min(checked.length, i + CHECK_SLICE);
          for (let j = i; j < end; j++) if (!unchanged(checked[j] as Watched)) return drop();
        }
        // A change during the slices above: the last events are read after the last lstat.
        return !e.watched.tree?.changed() || drop();
      },
    };
  }

  lookup(ws: Workspace, includeIgnored: boolean): RawList | null {
    const kept = this.peek(ws, includeIgnored);
    return kept && kept.confirm() ? kept.raw : null;
  }

  /** Keeps `raw` unless something it depends on changed too close to `listedAt` to tell. */
  store(ws: Workspace, includeIgnored: boolean, raw: RawList, watched: WatchSet, listedAt: number): boolean {
    let m = this.#byWorkspace.get(ws);
    if (!m) this.#byWorkspace.set(ws, (m = new Map()));
    const old = m.get(includeIgnored);
    if (old) this.#release(old);
    if (watched.recorded.some((w) => Math.max(w.mtime, w.ctime) >= listedAt - RACY_MARGIN_MS)) {
      m.delete(includeIgnored);
      watched.tree?.close();
      return false;
    }
    m.set(includeIgnored, { raw, watched });
    if (watched.tree) this.#trees.add(watched.tree);
    return true;
  }

  /** Whether the kept list of `ws` is watched with inotify (for tests and the fallback). */
  watchedByInotify(ws: Workspace, includeIgnored: boolean): boolean {
    return this.#byWorkspace.get(ws)?.get(includeIgnored)?.watched.tree != null;
  }

  #release(e: Entry): void {
    if (!e.watched.tree) return;
    e.watched.tree.close();
    this.#trees.delete(e.watched.tree);
  }

  /** Closes every inotify instance; kept lists are then checked as changed and listed again. */
  close(): void {
    for (const t of this.#trees) t.close();
    this.#trees.clear();
  }
}
