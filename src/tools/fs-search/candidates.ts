// Which files a search may look at, in result order, and how many it left out and why.
// In a git work tree the list comes from the index plus untracked files that .gitignore does
// not exclude (`git ls-files`); elsewhere from a walk that follows no link.
import { closeSync, constants, openSync, readdirSync } from 'node:fs';
import picomatch from 'picomatch';
import { sha256Hex } from '../../protocol/index.js';
import { gitLocations, listGitFiles, procPath, TreePacer, type PathClass, type Workspace } from '../../resources/index.js';
import { FileReader } from './file-access.js';
import { isCrashTemp } from './crash-temp.js';
import { watchSet, type CandidateListCache, type RawList } from './candidate-cache.js';
import type { CandidateSet } from './candidate-set.js';
import { comparePaths, mergeInOrder } from './order.js';

export interface CandidateOptions {
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
  readonly include_ignored: boolean;
  readonly include_generated: boolean;
}

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
const GENERATED_DIRS = new Set(['node_modules', 'dist']);

function isGeneratedPath(path: string): boolean {
  if (!path.includes('node_modules/') && !path.includes('dist/')) return false;
  const parts = path.split('/');
  for (let i = 0; i < parts.length - 1; i++) if (GENERATED_DIRS.has(parts[i] as string)) return true;
  return false;
}

async function listFromGit(ws: Workspace, includeIgnored: boolean, signal: AbortSignal): Promise<RawList | null> {
  const lists = await listGitFiles(ws.root, includeIgnored, signal);
  if (lists === null) return null;
  // git's walk opens directories by name: one swapped for a link meanwhile is listed through
  // (outside names under an inside prefix). A name is kept only if it is a regular file beneath
  // the root now, reached through directory fds without following any link.
  const untracked: string[] = [];
  const beneath = new FileReader(ws);
  try {
    for (const path of lists.untracked) if (beneath.isRegularFile(path)) untracked.push(path);
  } finally {
    beneath.close();
  }
  // git keeps its index sorted by the bytes of the path: our order. Only the (usually short)
  // untracked list needs sorting.
  untracked.sort(comparePaths);
  return { files: mergeInOrder(lists.tracked, untracked, (p) => p), ignored: lists.ignored.length, ignoredDirs: lists.ignored.filter((e) => e.endsWith('/')) };
}

/**
 * Outside git: every regular file beneath the root, directories entered through their parent's
 * fd without following links. The event loop runs every PACE_ENTRIES entries (TreePacer): a
 * workspace of 50,000 files was listed, and filtered, in one go on every search, ~230 ms of
 * every other call held.
 */
async function listFromWalk(ws: Workspace, signal: AbortSignal, pacer: TreePacer): Promise<RawList> {
  const files: string[] = [];
  const walk = async (dirfd: number, prefix: string): Promise<void> => {
    signal.throwIfAborted();
    let entries;
    try {
      entries = readdirSync(`/proc/self/fd/${dirfd}`, { withFileTypes: true });
    } catch {
      return; // not readable: nothing listed from it
    }
    for (const entry of entries) {
      if (pacer.due()) {
        await pacer.pause();
        signal.throwIfAborted();
      }
      const rel = prefix + entry.name;
      // The entry's own type (readdir does not follow links): a link is neither.
      if (entry.isFile()) files.push(rel);
      else if (entry.isDirectory() && entry.name !== '.git') {
        let fd: number;
        try {
          fd = openSync(procPath(dirfd, entry.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch {
          continue; // gone, or swapped for a link since it was listed
        }
        try {
          await walk(fd, rel + '/');
        } finally {
          closeSync(fd);
        }
      }
    }
  };
  await walk(ws.rootFd, '');
  return { files: files.sort(comparePaths), ignored: 0, ignoredDirs: [] };
}

/**
 * A glob with a slash matches the whole workspace-relative path; one without matches the file
 * name anywhere (`*.ts`), as in .gitignore.
 */
export function globMatcher(globs: readonly string[], nocase: boolean): (path: string) => boolean {
  const full = globs.filter((g) => g.includes('/'));
  const names = globs.filter((g) => !g.includes('/'));
  const matchFull = full.length ? picomatch(full, { dot: true, nocase }) : null;
  const matchName = names.length ? picomatch(names, { dot: true, nocase }) : null;
  return (path) => (matchFull !== null && matchFull(path)) || (matchName !== null && matchName(path.slice(path.lastIndexOf('/') + 1)));
}

/**
 * Remembers `classifier.classify(path)` per workspace (the classification of a path never
 * changes for a workspace's life); bounded.
 */
export class PathClassCache {
  readonly #byWorkspace = new WeakMap<Workspace, Map<string, PathClass>>();
  readonly #max: number;

  constructor(max = 500_000) {
    this.#max = max;
  }

  classify(ws: Workspace, path: string): PathClass {
    let m = this.#byWorkspace.get(ws);
    if (!m) this.#byWorkspace.set(ws, (m = new Map()));
    let c = m.get(path);
    if (c === undefined) {
      c = ws.classifier.classify(path);
      if (m.size >= this.#max) m.clear();
      m.set(path, c);
    }
    return c;
  }
}

/** A candidate set from a kept list that has not been checked yet. */
export type TentativeCandidates = CandidateSet & { readonly confirm?: () => Promise<boolean> };

interface Raw {
  readonly raw: RawList;
  readonly source: 'git' | 'walk';
  readonly confirm?: () => Promise<boolean>;
}

/** The raw list: from the cache when nothing it depends on changed, else from git (or a walk). */
async function rawList(ws: Workspace, includeIgnored: boolean, signal: AbortSignal, lists: CandidateListCache | undefined, tentative: boolean, pacer: TreePacer): Promise<Raw> {
  const kept = lists?.peek(ws, includeIgnored);
  if (kept && tentative) return { raw: kept.raw, source: 'git', confirm: kept.confirmYielding };
  if (kept && kept.confirm()) return { raw: kept.raw, source: 'git' };
  const listedAt = Date.now();
  const [fromGit, where] = await Promise.all([listFromGit(ws, includeIgnored, signal), lists ? gitLocations(ws.root, signal) : null]);
  if (!fromGit) return { raw: await listFromWalk(ws, signal, pacer), source: 'walk' };
  if (lists && where) lists.store(ws, includeIgnored, fromGit, await watchSet(ws.root, ws.rootFd, where, fromGit.ignoredDirs, includeIgnored, pacer), listedAt);
  return { raw: fromGit, source: 'git' };
}

/**
 * The candidates of a search. With `tentative`, a kept list is handed back unchecked with its
 * `confirm` check, so that the caller can overlap the check with the first batch of work.
 */
export async function listCandidates(
  ws: Workspace,
  opts: CandidateOptions,
  signal: AbortSignal,
  classes: PathClassCache,
  lists?: CandidateListCache,
  tentative = false,
  /** How the event loop is let run between slices of the listing (tests count the pauses). */
  pause?: () => Promise<void>,
): Promise<TentativeCandidates> {
  const pacer = new TreePacer(pause);
  const { raw, source, confirm } = await rawList(ws, opts.include_ignored, signal, lists, tentative, pacer);
  const key = JSON.stringify([opts.include ?? [], opts.exclude ?? [], opts.include_generated]);
  let set = lists?.filtered(raw, key);
  if (!set) {
    set = await filterCandidates(ws, raw, source, opts, classes, signal, pacer);
    lists?.keepFiltered(raw, key, set);
  }
  return confirm ? { ...set, confirm } : set;
}

/** The raw list without what a search never reads or was told to skip; the event loop runs every PACE_ENTRIES paths. */
async function filterCandidates(ws: Workspace, raw: RawList, source: 'git' | 'walk', opts: CandidateOptions, classes: PathClassCache, signal: AbortSignal, pacer: TreePacer): Promise<CandidateSet> {
  const include = opts.include?.length ? globMatcher(opts.include, false) : null;
  const exclude = opts.exclude?.length ? globMatcher(opts.exclude, false) : null;
  let secret = 0;
  let generated = 0;
  const files: string[] = [];
  for (const path of raw.files) {
    if (pacer.due()) {
      await pacer.pause();
      signal.throwIfAborted();
    }
    // Toolgate's own temp files (a write or delete cut short by a crash) are never results.
    if (isCrashTemp(path)) continue;
    if (include && !include(path)) continue;
    if (exclude && exclude(path)) continue;
    if (classes.classify(ws, path) === 'secret') {
      secret++;
      continue;
    }
    if (!opts.include_generated && isGeneratedPath(path)) {
      generated++;
      continue;
    }
    files.push(path);
  }
  return {
    files,
    listDigest: sha256Hex(files.join('\0')),
    skipped: { ignored: raw.ignored, secret, generated },
    source,
  };
}
