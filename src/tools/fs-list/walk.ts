// The tree beneath an open directory: each directory entered through its parent's fd with
// O_NOFOLLOW (a directory swapped for a link is never entered), each entry typed as a link is
// (never as its target), in depth-first order with every directory's names in byte order.
//
// An entry's type comes from the directory listing itself (d_type; Node lstats an entry whose
// type the file system does not give); only the entries the page lists are lstat'ed, for their
// size. Before, every entry was, the ones only counted past the page too: a directory of 50,000
// files cost ~10,500 lstats through /proc/self/fd (~50 ms of the event loop) for a page of 500.
import { closeSync, constants, lstatSync, openSync, readdirSync, type Dirent } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { isToolgateTempName, kindOf, procPath, type Workspace } from '../../resources/index.js';
import type { IgnoreRules } from './ignore.js';
import type { ListEntry, OmittedCounts } from './schema.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
const GENERATED_DIRS = new Set(['node_modules', 'dist']);

export interface WalkRequest {
  readonly ws: Workspace;
  /** The listed directory, workspace-relative (`.` for the root), and its open fd. */
  readonly top: string;
  readonly topFd: number;
  readonly depth: number;
  readonly maxEntries: number;
  readonly moreLimit: number;
  readonly includeGenerated: boolean;
  readonly ignore: IgnoreRules;
  /** Resume after this entry (components below `top`), from a continuation. */
  readonly after: readonly string[] | null;
  readonly signal: AbortSignal;
}

export interface WalkAnswer {
  readonly entries: ListEntry[];
  readonly omitted: OmittedCounts;
  readonly more: number;
  readonly moreExact: boolean;
  /** The last listed entry (components below `top`), when there is more. */
  readonly last: readonly string[] | null;
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A listing's entries in byte order of their names, each name encoded once (not twice a comparison). */
function sortedByBytes(entries: Dirent[]): Dirent[] {
  const keyed = entries.map((e) => ({ e, key: Buffer.from(e.name) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map((k) => k.e);
}

function kindOfDirent(e: Dirent): ListEntry['type'] {
  return e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'directory' : e.isFile() ? 'file' : 'other';
}

/** Order of two entries in the walk: component by component, names in byte order. */
export function compareComponents(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareBytes(a[i] as string, b[i] as string);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function isPrefix(prefix: readonly string[], of: readonly string[]): boolean {
  return prefix.length < of.length && prefix.every((p, i) => of[i] === p);
}

/** A link's target as the workspace sees it: shown only when it resolves beneath the root and is not secret. */
function linkEntry(ws: Workspace, path: string): Pick<ListEntry, 'target' | 'target_type' | 'target_hidden'> {
  try {
    // Resolves the link (and any link after it) lexically beneath the root; path_escape when it leaves.
    const r = ws.resolve(path);
    if (ws.classifier.classify(r.path) === 'secret') return { target: null, target_type: null, target_hidden: 'secret' };
    const type = !r.exists ? 'missing' : r.kind === 'file' || r.kind === 'directory' ? r.kind : 'other';
    return { target: r.path, target_type: type, target_hidden: null };
  } catch (e) {
    if (ToolgateError.isInstance(e) && e.code === 'not_found') return { target: null, target_type: 'missing', target_hidden: null };
    // path_escape (outside, or too many hops) and anything else: the target is not shown.
    return { target: null, target_type: null, target_hidden: 'outside_workspace' };
  }
}

export function walkListing(req: WalkRequest): WalkAnswer {
  const entries: ListEntry[] = [];
  const omitted = { ignored: 0, generated: 0, secret: 0 };
  let more = 0;
  let moreExact = true;
  let last: readonly string[] | null = null;
  const prefix = req.top === '.' ? '' : `${req.top}/`;

  /** false once counting passed its limit: the walk stops. */
  const visit = (dirfd: number, below: readonly string[], level: number): boolean => {
    req.signal.throwIfAborted();
    let listing: Dirent[];
    try {
      listing = sortedByBytes(readdirSync(`/proc/self/fd/${dirfd}`, { withFileTypes: true }));
    } catch {
      return true; // gone or unreadable since it was opened: nothing listed from it
    }
    for (const dirent of listing) {
      const name = dirent.name;
      const components = [...below, name];
      // Resuming: what comes before the cursor was listed on an earlier page; the cursor and
      // the directories holding it were listed too, but what follows inside them was not.
      const order = req.after === null ? 1 : compareComponents(components, req.after);
      const holdsCursor = req.after !== null && (order === 0 || isPrefix(components, req.after));
      if (order <= 0 && !holdsCursor) continue;
      const path = prefix + components.join('/');
      if (name === '.git' || isToolgateTempName(name)) continue;
      let type = kindOfDirent(dirent);
      let isDir = type === 'directory';
      if (!holdsCursor) {
        if (req.ws.classifier.classify(path) === 'secret') {
          if (entries.length < req.maxEntries) omitted.secret++;
          continue;
        }
        if (req.ignore.ignored(path, isDir)) {
          if (entries.length < req.maxEntries) omitted.ignored++;
          continue;
        }
        if (isDir && !req.includeGenerated && GENERATED_DIRS.has(name)) {
          if (entries.length < req.maxEntries) omitted.generated++;
          continue;
        }
        if (entries.length < req.maxEntries) {
          let st;
          try {
            st = lstatSync(procPath(dirfd, name));
          } catch {
            continue; // gone since it was listed
          }
          // Replaced since it was listed: what it is now.
          type = kindOf(st);
          isDir = type === 'directory';
          const entry: ListEntry = { path, type, depth: level, size: type === 'file' ? st.size : null };
          entries.push(type === 'symlink' ? { ...entry, ...linkEntry(req.ws, path) } : entry);
          last = components;
        } else if (++more >= req.moreLimit) {
          moreExact = false;
          return false;
        }
      }
      if (!isDir || level >= req.depth) continue;
      let fd: number;
      try {
        fd = openSync(procPath(dirfd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch {
        continue; // gone, or swapped for a link since it was listed
      }
      try {
        if (!visit(fd, components, level + 1)) return false;
      } finally {
        closeSync(fd);
      }
    }
    return true;
  };
  visit(req.topFd, [], 1);
  return { entries, omitted, more, moreExact, last: more > 0 ? last : null };
}
