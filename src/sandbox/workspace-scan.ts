// What the sandbox must cover inside the workspace, found by one walk before each run: secret
// files and directories (masked: the command can neither read, link nor replace them) and the
// repository metadata and configuration that the host obeys later (bound read-only onto
// themselves, so the entry itself cannot be renamed, removed or replaced either).
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ToolgateError } from '../protocol/index.js';
import { DIRECTORY_MASK, IN_IGNORED, IN_Q_OVERFLOW, Inotify, nextTurn, watchableFileSystem, type PathClass } from '../resources/index.js';

/** Mounts over workspace entries, by absolute path (all beneath the workspace). */
export interface WorkspaceMounts {
  /** Bound read-only onto themselves: `.git` (directory or gitfile) at any depth, its gitdir, Toolgate's config. */
  readonly readOnly: readonly string[];
  /** Secret files: a read-only bind of /dev/null (nodev: cannot be opened; a mount point: cannot be linked, moved or replaced). */
  readonly maskFiles: readonly string[];
  /** Secret directories: an empty read-only tmpfs. */
  readonly maskDirs: readonly string[];
}

export const NO_WORKSPACE_MOUNTS: WorkspaceMounts = { readOnly: [], maskFiles: [], maskDirs: [] };

export interface ScanLimits {
  /** Entries listed before the walk gives up (fail closed: the run is refused). */
  readonly maxEntries: number;
  /** Mounts before the run is refused: each costs bubblewrap time on every spawn. */
  readonly maxMounts: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxEntries: 500_000, maxMounts: 2_048 };

export interface ScanOptions {
  /** Workspace-relative path → class (the runtime's classifier: configured patterns included). */
  readonly classify: (relPath: string) => PathClass;
  readonly limits?: ScanLimits;
  /** The user the command runs as: directories it cannot walk hold nothing it could reach. */
  readonly user: { readonly uid: number; readonly gid: number };
  /** What earlier scans with the same root and `classify` found, directory by directory. */
  readonly cache?: ScanCache;
}

/** One directory as a scan classified it: what it holds that the sandbox covers, and where to go on. */
interface DirListing {
  /** Device, inode, mtime and ctime (ns) of the directory when it was read. */
  readonly sig: string;
  readonly entries: number;
  readonly protectedEntries: readonly { readonly name: string; readonly link: boolean; readonly gitfile: boolean }[];
  readonly secretDirs: readonly string[];
  readonly secretFiles: readonly string[];
  /**
   * The subdirectories to walk: absolute path and workspace-relative prefix, made once per
   * listing (the same string objects each scan: their hashes, for the cache's lookups, too).
   */
  readonly subdirs: readonly { readonly path: string; readonly prefix: string }[];
}

/**
 * A directory whose mtime is this close to the time it was read is read again next time: file
 * times come from a coarse clock (a jiffy, up to 10 ms), so a change within the same tick after
 * the read would leave the same mtime behind (git's "racily clean" entries, the same rule).
 */
const RACY_MS = 1000;

/** What one scan did with the directories it walked (ScanCache.lastScan). */
export interface ScanCounts {
  /** Read with readdir and classified. */
  readonly listed: number;
  /** lstat'ed, to compare their signature with the listing kept. */
  readonly checked: number;
  /** Taken as kept without a look: watched, and no event since they were read. */
  readonly reused: number;
}

export interface ScanCacheOptions {
  /**
   * Watch the walked directories with inotify (the default, on a local file system): a scan then
   * looks only at directories that had an event since they were read. false: every scan lstats
   * every directory it walks.
   */
  readonly watch?: boolean;
}

/**
 * The scan's per-directory results, reused from scan to scan. One per Sandbox: the
 * classification is that of its `classify`.
 *
 * Watched (inotify, resources/paths/inotify.ts): each directory's watch is added before it is
 * read, and any event on it since (an entry created, deleted, moved in or out or changed in its
 * mode or times; the directory itself changed, moved, deleted or unmounted), or on a named entry
 * of its parent, has it read again; a queue overflow, or an instance that cannot be read, has
 * every directory read again and the watching given up. An event is queued inside the system
 * call that makes the change, so the events read right before a scan cover every change that
 * had returned. A workspace of 22,000 directories (a modest node_modules) cost every
 * shell.exec ~90 ms of lstats on the event loop before (issue 14); watched, an unchanged tree
 * costs one read().
 *
 * Not watched (another file system, no inotify, a watch refused): a listing is reused while the
 * directory's device, inode, mtime and ctime are those it had when read (an entry added,
 * removed, renamed or replaced changes the mtime of its directory; chmod changes the ctime), and
 * it was not read within RACY_MS of its last change; each scan stats every directory it walks.
 * Gitfiles are re-read by every scan either way. A mount raises no inotify event: when this
 * process's mount table changed since the last scan, every directory is looked at again.
 */
export class ScanCache {
  #dirs = new Map<string, DirListing>();
  readonly #watchWanted: boolean;
  /** undefined: not opened yet; null: not watching (unavailable, given up, or closed). */
  #watch: Inotify | null | undefined = undefined;
  /** Watch descriptor → the directory paths it was added for (one inode may be bound at two). */
  readonly #paths = new Map<number, Set<string>>();
  /** Directories whose watch was added before their listing was read, with no event since. */
  readonly #clean = new Set<string>();
  /** Per clean directory: which of its subdirectories a non-root user can enter, by `uid:gid`. */
  readonly #traversal = new Map<string, { readonly user: string; readonly ok: readonly boolean[] }>();
  lastScan: ScanCounts = { listed: 0, checked: 0, reused: 0 };
  /** This process's mount table at the last scan: a mount raises no inotify event. */
  #mounts: string | null = null;

  /** Scans of this cache take turns (scanWorkspacePaced): the end of the last one asked for. */
  #turn: Promise<unknown> = Promise.resolve();
  #scanning = false;

  constructor(o: ScanCacheOptions = {}) {
    this.#watchWanted = o.watch ?? true;
  }

  /** @internal Whether this cache has given up watching, or never could (its scans stat every directory). */
  get unwatched(): boolean {
    return this.#watch === null;
  }

  /** @internal Whether a scan of this cache is under way (a paced one may be between turns). */
  get scanning(): boolean {
    return this.#scanning;
  }

  /** @internal A scan begins and ends. */
  enter(): void {
    this.#scanning = true;
  }

  leave(): void {
    this.#scanning = false;
  }

  /** @internal Runs `scan` once every scan asked for before it has ended. */
  exclusive<T>(scan: () => Promise<T>): Promise<T> {
    const run = this.#turn.then(scan, scan);
    this.#turn = run.catch(() => undefined);
    return run;
  }

  /** Whether the directories are watched now. */
  get watching(): boolean {
    return this.#watch !== null && this.#watch !== undefined;
  }

  /** @internal Before a scan of `root`: the events since the last one each have their directory read again. */
  begin(root: string): void {
    if (this.#watch === undefined) this.#watch = this.#watchWanted && watchableFileSystem(root) ? Inotify.open() : null;
    const w = this.#watch;
    if (w === null) return;
    // Something mounted or unmounted since (on a directory of the workspace, perhaps): every
    // directory is looked at again, by its signature (a mount point's device and inode change).
    const mounts = mountTable();
    if (mounts !== this.#mounts) this.#clean.clear();
    this.#mounts = mounts;
    let lost = false;
    const read = w.drain((wd, mask, name) => {
      if (mask & IN_Q_OVERFLOW) {
        lost = true;
        return true;
      }
      const paths = this.#paths.get(wd);
      if (paths === undefined) return false;
      for (const dir of paths) {
        this.#clean.delete(dir);
        if (name !== null) this.#clean.delete(join(dir, name));
      }
      if (mask & IN_IGNORED) this.#paths.delete(wd);
      return false;
    });
    if (lost || !read) {
      // Events were lost: nothing kept can be trusted, not even a listing a signature would
      // vouch for (one read within a tick of a change was kept because the watch covered it).
      w.close();
      this.#watch = null;
      this.#dirs = new Map();
      this.#clean.clear();
      this.#paths.clear();
      this.#traversal.clear();
    }
  }

  /** @internal The listing of `dir` when it can be taken without a look. */
  clean(dir: string): DirListing | undefined {
    return this.#clean.has(dir) ? this.#dirs.get(dir) : undefined;
  }

  /** @internal Watches `dir` before its listing is read; false when it is not watched. */
  watch(dir: string): boolean {
    const w = this.#watch;
    if (w === null || w === undefined) return false;
    const wd = w.add(dir, DIRECTORY_MASK);
    if (wd < 0) return false;
    let paths = this.#paths.get(wd);
    if (paths === undefined) this.#paths.set(wd, (paths = new Set()));
    paths.add(dir);
    return true;
  }

  /** @internal `dir` was read after its watch was added. */
  read(dir: string): void {
    this.#clean.add(dir);
    this.#traversal.delete(dir);
  }

  /** @internal Which subdirectories of a clean `dir` `user` can enter, as last found. */
  traversal(dir: string, user: string): readonly boolean[] | undefined {
    const t = this.#clean.has(dir) ? this.#traversal.get(dir) : undefined;
    return t?.user === user ? t.ok : undefined;
  }

  /** @internal Keeps which subdirectories of a clean `dir` `user` can enter. */
  keepTraversal(dir: string, user: string, ok: readonly boolean[]): void {
    if (this.#clean.has(dir)) this.#traversal.set(dir, { user, ok });
  }

  /** @internal Signature-checked listing (not watched). */
  get(dir: string, sig: string): DirListing | undefined {
    const hit = this.#dirs.get(dir);
    return hit?.sig === sig ? hit : undefined;
  }

  /** @internal Replaces the whole cache with what one complete scan visited (a vanished directory is dropped). */
  replace(dirs: Map<string, DirListing>, counts: ScanCounts): void {
    this.#dirs = dirs;
    this.lastScan = counts;
    // A directory goes only when its parent (or it) changed, and was then read again.
    if (counts.checked === 0) return;
    for (const dir of this.#clean) if (!dirs.has(dir)) this.#clean.delete(dir);
    for (const dir of this.#traversal.keys()) if (!dirs.has(dir)) this.#traversal.delete(dir);
    for (const [wd, paths] of this.#paths) {
      for (const dir of paths) if (!dirs.has(dir)) paths.delete(dir);
      if (paths.size > 0) continue;
      // No longer walked (moved out of the workspace, or no longer entered): its watch ends,
      // so that the kernel's watches stay as many as the directories walked.
      this.#paths.delete(wd);
      this.#watch?.remove(wd);
    }
  }

  get size(): number {
    return this.#dirs.size;
  }

  /** Stops watching (every watch ends with the instance); later scans lstat each directory. */
  close(): void {
    this.#watch?.close();
    this.#watch = null;
    this.#clean.clear();
    this.#paths.clear();
    this.#traversal.clear();
  }
}

function mountTable(): string | null {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return null;
  }
}

function signatureOf(dir: string): { sig: string; changedMs: number } | null {
  try {
    const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
    if (!st) return null;
    return { sig: `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`, changedMs: Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1_000_000n) };
  } catch {
    return null;
  }
}

function listDir(dir: string, prefix: string, sig: string, classify: (rel: string) => PathClass): DirListing | null {
  let list: Dirent[];
  try {
    list = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null; // vanished or unreadable: nothing the command could see through it either
  }
  const protectedEntries: { name: string; link: boolean; gitfile: boolean }[] = [];
  const secretDirs: string[] = [];
  const secretFiles: string[] = [];
  const subdirs: { path: string; prefix: string }[] = [];
  for (const e of list) {
    const cls = classify(prefix + e.name);
    if (cls === 'protected') protectedEntries.push({ name: e.name, link: e.isSymbolicLink(), gitfile: e.isFile() && e.name === '.git' });
    else if (cls === 'secret') {
      if (e.isDirectory()) secretDirs.push(e.name);
      else if (!e.isSymbolicLink()) secretFiles.push(e.name);
    } else if (e.isDirectory()) subdirs.push({ path: join(dir, e.name), prefix: `${prefix}${e.name}/` });
  }
  return { sig, entries: list.length, protectedEntries, secretDirs, secretFiles, subdirs };
}

function traversable(path: string, uid: number, gid: number): boolean {
  if (uid === 0) return true;
  try {
    const st = statSync(path);
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    return (st.mode & bit) !== 0;
  } catch {
    return false;
  }
}

/** The gitdir a `.git` file points at (`gitdir: PATH`, relative to the file), or null. */
function gitdirOf(gitfile: string): string | null {
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(gitfile, 'utf8').slice(0, 4096));
    if (!m?.[1]) return null;
    return isAbsolute(m[1]) ? m[1] : resolve(dirname(gitfile), m[1]);
  } catch {
    return null;
  }
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + '/');
}

/** Directories looked at (listed or lstat'ed) between two turns of the event loop in a paced scan. */
export const SCAN_SLICE = 256;
/**
 * Directories taken from a watched cache without a look count as this fraction of one looked
 * at (~0.2 µs against ~30 µs): an unchanged tree of 20,000 directories is walked in one go.
 */
const REUSED_WEIGHT = 1 / 128;

/**
 * Walks the workspace (links are not followed) and lists what to cover. A protected entry that
 * is a symbolic link cannot be covered (a bind follows it) and refuses the run: the link itself
 * could be replaced. A secret link is left alone: masking it would mask its target, which the
 * command reaches under its own name anyway.
 */
export function scanWorkspace(root: string, o: ScanOptions): WorkspaceMounts {
  if (o.cache?.scanning === true) throw new ToolgateError('internal_error', 'a workspace scan ran while a paced scan of the same cache was under way', {});
  const steps = scanSteps(root, o);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/**
 * The same scan, letting the event loop run every SCAN_SLICE directories looked at (`pause`):
 * the first scan of a workspace of 20,000 directories held the event loop, and so every other
 * call on the server, for 360 ms. Scans of one cache take turns: one that waits starts when the
 * other has ended (and finds its listings).
 *
 * Other calls run between the slices: one could move a directory that holds a secret from a part
 * not yet walked into one already walked (fs.rename checks the names it moves, not what they
 * hold), and the paced walk would meet it nowhere. So the paced walk is followed by a whole one,
 * in one go as before, whose lists are the ones used: it re-reads only the directories with an
 * inotify event since they were read (a move is one), ~4 ms for those 20,000 directories. A
 * paced walk that never paused ran in one go already and needs no second one (an unchanged
 * tree: the steady state of every later run). Where
 * the cache does not watch, every scan is whole and in one go (its lstats are the slow part, and
 * a second walk would repeat them); so is a scan without a cache.
 */
export async function scanWorkspacePaced(root: string, o: ScanOptions, pause: () => Promise<void> = nextTurn): Promise<WorkspaceMounts> {
  const cache = o.cache;
  if (cache === undefined) return scanWorkspace(root, o);
  return cache.exclusive(async () => {
    if (cache.unwatched) return scanWorkspace(root, o);
    const { value, paused } = await drivePaced(scanSteps(root, o), pause);
    return paused ? scanWorkspace(root, o) : value;
  });
}

/** Runs the steps, pausing where they yield; whether it paused at all. */
async function drivePaced<T>(steps: Generator<void, T, void>, pause: () => Promise<void>): Promise<{ value: T; paused: boolean }> {
  let paused = false;
  for (;;) {
    const r = steps.next();
    if (r.done === true) return { value: r.value, paused };
    paused = true;
    await pause();
  }
}

/** The scan as steps: it yields when the event loop may run (every SCAN_SLICE directories looked at). */
function* scanSteps(root: string, o: ScanOptions): Generator<void, WorkspaceMounts, void> {
  const limits = o.limits ?? DEFAULT_SCAN_LIMITS;
  const readOnly: string[] = [];
  const maskFiles: string[] = [];
  const maskDirs: string[] = [];
  const seen = new Map<string, DirListing>();
  const counts = { listed: 0, checked: 0, reused: 0 };
  const cache = o.cache;
  cache?.begin(root);
  const user = `${o.user.uid}:${o.user.gid}`;
  let entries = 0;
  let work = 0;
  /** One directory: what it holds is added to the lists; the subdirectories to walk next, in order. */
  const visit = (dir: string, prefix: string): readonly { readonly path: string; readonly prefix: string }[] => {
    let listing: DirListing | null | undefined;
    /** The listing is watched and unchanged since read: what it found about subdirectories holds too. */
    let clean = false;
    if (cache) {
      listing = cache.clean(dir);
      if (listing) {
        counts.reused++;
        work += REUSED_WEIGHT;
        seen.set(dir, listing);
        clean = true;
      } else {
        // The watch comes before the look: a change after it is an event for the next scan.
        const watched = cache.watch(dir);
        const now = Date.now();
        const s = signatureOf(dir);
        counts.checked++;
        work++;
        if (s === null) return []; // vanished
        listing = cache.get(dir, s.sig);
        if (!listing) {
          listing = listDir(dir, prefix, s.sig, o.classify);
          counts.listed++;
          if (listing && (watched || now - s.changedMs > RACY_MS)) seen.set(dir, listing);
        } else seen.set(dir, listing);
        if (listing && watched) {
          cache.read(dir);
          clean = true;
        }
      }
    } else {
      listing = listDir(dir, prefix, '', o.classify);
      work++;
    }
    if (!listing) return [];
    entries += listing.entries;
    if (entries > limits.maxEntries) {
      throw new ToolgateError('limit_exceeded', 'the workspace has more entries than the sandbox scans for secret and protected paths', { limit: 'scan_entries', value: limits.maxEntries, entries });
    }
    for (const p of listing.protectedEntries) {
      const rel = prefix + p.name;
      const abs = join(dir, p.name);
      if (p.link) {
        throw new ToolgateError('unsupported', `${rel} is a symbolic link: the sandbox cannot keep it from being replaced`, { path: rel, reason: 'protected_link' });
      }
      readOnly.push(abs);
      if (p.gitfile) {
        const gitdir = gitdirOf(abs);
        // Never a gitdir that encloses the gitfile (the workspace itself): that is no repository layout.
        if (gitdir !== null && isWithin(gitdir, root) && !isWithin(abs, gitdir)) readOnly.push(gitdir);
      }
    }
    for (const name of listing.secretDirs) maskDirs.push(join(dir, name));
    for (const name of listing.secretFiles) maskFiles.push(join(dir, name));
    // As root every directory is entered; another user's entry is decided by each one's mode,
    // which an event on `dir` (a child's chmod or chown) would have reported.
    const subdirs = listing.subdirs;
    let ok = o.user.uid === 0 ? undefined : clean ? cache?.traversal(dir, user) : undefined;
    if (o.user.uid !== 0 && ok === undefined) {
      ok = subdirs.map((d) => traversable(d.path, o.user.uid, o.user.gid));
      if (clean) cache?.keepTraversal(dir, user, ok);
    }
    return ok === undefined ? subdirs : subdirs.filter((_, i) => ok[i] === true);
  };
  cache?.enter();
  try {
    // Depth first, each directory before what is beneath it, subdirectories in listing order
    // (the order of the lists, which shell.session compares from scan to scan).
    const stack: { readonly path: string; readonly prefix: string }[] = [{ path: root, prefix: '' }];
    while (stack.length > 0) {
      const d = stack.pop() as { readonly path: string; readonly prefix: string };
      const next = visit(d.path, d.prefix);
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i] as { readonly path: string; readonly prefix: string });
      if (work >= SCAN_SLICE) {
        work = 0;
        yield;
      }
    }
  } finally {
    // Also when a protected link refuses the run midway: a directory read again before it is
    // marked clean, so the cache must hold that reading (the one before would hide a secret
    // found since); a directory not reached is read again next time.
    cache?.replace(seen, counts);
    cache?.leave();
  }
  // A gitdir found through a gitfile may lie under a directory walked later; keep the outermost.
  const ro = readOnly.filter((p) => !readOnly.some((q) => q !== p && isWithin(p, q)));
  const mounts = ro.length + maskFiles.length + maskDirs.length;
  if (mounts > limits.maxMounts) {
    throw new ToolgateError('limit_exceeded', 'the workspace holds more secret and protected paths than the sandbox covers', { limit: 'scan_mounts', value: limits.maxMounts, mounts });
  }
  return { readOnly: ro, maskFiles: maskFiles.filter((f) => !ro.some((p) => isWithin(f, p))), maskDirs: maskDirs.filter((d) => !ro.some((p) => isWithin(d, p))) };
}
