// The raw candidate list of a git work tree, kept between searches while nothing that decides
// it has changed: git's own untracked cache, done outside the user's index. What decides it:
// the index; the entries of every directory git's walk reads (a created, deleted or renamed
// entry moves its directory's mtime); every ignore file (.gitignore files, info/exclude, the
// global excludes file) and git's config files. Any difference drops the entry. All of them are
// lstat'ed on every lookup (a few thousand directories: ~10 ms) until the directories and the
// .gitignore files in them are watched with inotify (tree-watch.ts: one read() a lookup), which
// a kept list sets up after the search that listed it, in slices between other work: adding
// ~3,000 watches costs ~17 ms, which would otherwise lengthen every search that lists anew.
// What lies outside the workspace is always lstat'ed.
//
// Racy timestamps: a change in the same clock tick as a recorded mtime would not move it. So
// a list is kept only if every recorded time is older than the start of the listing by
// RACY_MARGIN_MS; a tree that changed just before is listed again on the next search.
import { closeSync, constants, lstatSync, openSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { procPath, TreePacer, watchableFileSystem, type GitLocations, type Workspace } from '../../resources/index.js';
import type { CandidateSet } from './candidate-set.js';
import { TreeWatch } from './tree-watch.js';

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
  /** What inotify watches of it: a directory of the tree, a .gitignore in one, or nothing (lstat'ed). */
  readonly kind: 'dir' | 'ignore' | null;
  readonly dev: number;
  /** inode, size, mtime, ctime (ms); all NaN when the path is missing. */
  readonly ino: number;
  readonly size: number;
  readonly mtime: number;
  readonly ctime: number;
}

function watch(path: string, kind: Watched['kind'] = null): Watched {
  // Millisecond times suffice: a kept list is at least RACY_MARGIN_MS older than any change.
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return { path, kind: null, dev: Number.NaN, ino: Number.NaN, size: Number.NaN, mtime: Number.NaN, ctime: Number.NaN };
  return { path, kind, dev: st.dev, ino: st.ino, size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs };
}

function unchanged(w: Watched): boolean {
  const st = lstatSync(w.path, { throwIfNoEntry: false });
  if (st === undefined) return Number.isNaN(w.ino);
  return st.ino === w.ino && st.size === w.size && st.mtimeMs === w.mtime && st.ctimeMs === w.ctime;
}

/**
 * Everything whose change could change the list, lstat'ed now, in walk order (a directory
 * before what it holds); the directories of the tree and their .gitignore files have a `kind`.
 * The event loop runs every PACE_ENTRIES entries (`pacer`): the walk of a tree of 500
 * directories and 50,000 files held it ~50 ms. A change meanwhile moves a recorded time past
 * the listing's start, and the list is not kept (RACY_MARGIN_MS).
 */
export async function watchSet(root: string, rootFd: number, where: GitLocations, ignoredDirs: readonly string[], includeIgnored: boolean, pacer = new TreePacer()): Promise<Watched[]> {
  const out: Watched[] = [];
  const skip = new Set(includeIgnored ? [] : ignoredDirs.map((d) => d.replace(/\/$/, '')));
  // Directories are entered through their parent's fd without following links: a directory
  // swapped for a link (to the outside, to /) is not walked.
  const walk = async (dirfd: number, abs: string, rel: string): Promise<void> => {
    out.push(watch(abs, 'dir'));
    let entries;
    try {
      entries = readdirSync(`/proc/self/fd/${dirfd}`, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (pacer.due()) await pacer.pause();
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === '.gitignore') out.push(watch(join(abs, e.name), 'ignore'));
      else if (e.isDirectory() && e.name !== '.git' && !skip.has(childRel)) {
        let fd: number;
        try {
          fd = openSync(procPath(dirfd, e.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch {
          // Gone or swapped for a link since it was listed: recorded as it is now.
          out.push(watch(join(abs, e.name)));
          continue;
        }
        try {
          await walk(fd, join(abs, e.name), childRel);
        } finally {
          closeSync(fd);
        }
      }
    }
  };
  await walk(rootFd, root, '');
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
  return out;
}

interface Entry {
  readonly raw: RawList;
  readonly recorded: readonly Watched[];
  /** What each lookup lstats: everything, until `tree` watches the directories. */
  checked: readonly Watched[];
  tree: TreeWatch | null;
  /** Settles once the watches are set up (true) or given up (false). */
  armed: Promise<boolean>;
}

function unchangedSince(e: Entry): boolean {
  return !(e.tree?.changed() ?? false) && e.checked.every(unchanged);
}

/** Slices of watches set up between two turns of the event loop. */
const ARM_SLICE = 256;

/** Per tool instance: the last list of each workspace (and include_ignored setting). */
export class CandidateListCache {
  /** Whether kept lists are watched with inotify where it can be used (false: always lstat'ed). */
  readonly inotify: boolean;
  readonly #byWorkspace = new WeakMap<Workspace, Map<boolean, Entry>>();
  /** Filtered lists (include, exclude, generated) of a raw list; gone with it. */
  readonly #filtered = new WeakMap<RawList, Map<string, CandidateSet>>();
  /** Every open inotify instance of a kept list, for close(). */
  readonly #trees = new Set<TreeWatch>();
  /** After close(): no more watches are set up (one being set up then is closed). */
  #closed = false;

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
      confirm: () => unchangedSince(e) || drop(),
      confirmYielding: async () => {
        if (e.tree?.changed()) return drop();
        const checked = e.checked;
        for (let i = 0; i < checked.length; i += CHECK_SLICE) {
          if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
          const end = Math.min(checked.length, i + CHECK_SLICE);
          for (let j = i; j < end; j++) if (!unchanged(checked[j] as Watched)) return drop();
        }
        // A change during the slices above: the last events are read after the last lstat.
        return !e.tree?.changed() || drop();
      },
    };
  }

  lookup(ws: Workspace, includeIgnored: boolean): RawList | null {
    const kept = this.peek(ws, includeIgnored);
    return kept && kept.confirm() ? kept.raw : null;
  }

  /** Keeps `raw` unless something it depends on changed too close to `listedAt` to tell. */
  store(ws: Workspace, includeIgnored: boolean, raw: RawList, recorded: readonly Watched[], listedAt: number): boolean {
    let m = this.#byWorkspace.get(ws);
    if (!m) this.#byWorkspace.set(ws, (m = new Map()));
    const old = m.get(includeIgnored);
    if (old) this.#release(old);
    if (recorded.some((w) => Math.max(w.mtime, w.ctime) >= listedAt - RACY_MARGIN_MS)) {
      m.delete(includeIgnored);
      return false;
    }
    const e: Entry = { raw, recorded, checked: recorded, tree: null, armed: Promise.resolve(false) };
    m.set(includeIgnored, e);
    if (this.inotify && !this.#closed && watchableFileSystem(ws.root)) e.armed = this.#arm(m, includeIgnored, e);
    return true;
  }

  /**
   * Sets up the inotify watches of a kept list, a slice per turn of the event loop, after the
   * search that listed it. Each watch is added before its path is lstat'ed again and compared
   * with what was recorded: a change before the watch shows in the comparison (the list is
   * dropped), one after it is an event. Directories come before what they hold, so a directory
   * swapped for a link once its parent is watched is an event of the parent. Until every watch
   * is in place, lookups lstat everything; without inotify, a watch left or a local file system,
   * they go on doing so.
   */
  async #arm(m: Map<boolean, Entry>, key: boolean, e: Entry): Promise<boolean> {
    await new Promise<void>((resolve) => setImmediate(resolve)); // after the search that listed it
    const tree = TreeWatch.open();
    if (!tree) return false;
    const local = new Map<number, boolean>();
    const current = (): boolean => m.get(key) === e && !this.#closed;
    let ok = true;
    let i = 0;
    for (const w of e.recorded) {
      if (w.kind === null) continue;
      if (++i % ARM_SLICE === 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!current()) {
          ok = false;
          break;
        }
      }
      if (!local.has(w.dev)) local.set(w.dev, watchableFileSystem(w.path)); // not a remote mount inside
      if (local.get(w.dev) !== true || !(w.kind === 'dir' ? tree.addDirectory(w.path) : tree.addIgnoreFile(w.path))) {
        ok = false;
        break;
      }
      if (!unchanged(w)) {
        if (current()) m.delete(key); // changed since it was listed
        ok = false;
        break;
      }
    }
    if (!ok || !current()) {
      tree.close();
      return false;
    }
    e.tree = tree;
    e.checked = e.recorded.filter((w) => w.kind === null);
    this.#trees.add(tree);
    return true;
  }

  /** Whether the kept list of `ws` is watched with inotify, once its watches are set up (tests). */
  async watchedByInotify(ws: Workspace, includeIgnored: boolean): Promise<boolean> {
    const e = this.#byWorkspace.get(ws)?.get(includeIgnored);
    return e !== undefined && (await e.armed) && this.#byWorkspace.get(ws)?.get(includeIgnored) === e && e.tree !== null;
  }

  #release(e: Entry): void {
    if (!e.tree) return;
    e.tree.close();
    this.#trees.delete(e.tree);
  }

  /** Closes every inotify instance; kept lists are then checked as changed and listed again. */
  close(): void {
    this.#closed = true;
    for (const t of this.#trees) t.close();
    this.#trees.clear();
  }
}
