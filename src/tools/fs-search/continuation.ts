// Continuation tokens for fs.search. A token is HMAC-signed by the runtime's codec (which also
// binds the task) and carries: the digest of the query (mode, query, options, sort order), the
// Toolgate revision, the digest of the candidate list, a stat digest of every candidate up to
// the cursor, the cursor, and how many results came before. docs/search.md explains the choice.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ToolgateError, digestOf } from '../../protocol/index.js';
import type { TokenCodec } from '../../registry/index.js';
import type { FsSearchArgs } from './schema.js';
import type { Cursor } from './order.js';

export const TOKEN_KIND = 'fs.search';
export const SORT_ORDER = 'path-utf8-bytes,line,column';
/** filename mode, `order: mtime`: newest first, ties in path order. */
export const MTIME_SORT_ORDER = 'mtime-desc,path-utf8-bytes';

export interface PageStart {
  readonly cursor: Cursor | null;
  /** Results returned by the pages before this one. */
  readonly before: number;
  readonly listDigest: string;
  readonly seenDigest: string;
}

interface TokenPayload {
  readonly v: 2;
  readonly q: string;
  readonly rev: string;
  readonly list: string;
  readonly seen: string;
  readonly cursor: Cursor | null;
  readonly before: number;
}

/** What the result sequence depends on; the page bounds (max_results, max_bytes, timeout) do not. */
export function queryDigest(a: FsSearchArgs): string {
  return digestOf({
    mode: a.mode,
    query: a.query,
    ...(a.mode === 'filename' ? { filename_match: a.filename_match } : {}),
    output: a.output,
    include: a.include ?? [],
    exclude: a.exclude ?? [],
    include_ignored: a.include_ignored,
    include_generated: a.include_generated,
    case_sensitive: a.case_sensitive,
    language: a.language ?? null,
    context_lines: a.context_lines,
    order: a.order === 'mtime' ? MTIME_SORT_ORDER : SORT_ORDER,
  });
}

/**
 * Device, inode, size, mtime and ctime of each file, in list order: as this page's engine opened
 * it when `opened` knows the file (FileReader.openedStamp, from the fstat of that open: a change
 * made after the search and before the token is issued then makes the token stale, as it
 * should), else as an lstat now. Both give the same text for an unchanged file.
 */
export function statDigest(root: string, files: readonly string[], upTo: number, opened: (path: string) => string | null = () => null): string {
  const h = createHash('sha256');
  for (let i = 0; i < upTo && i < files.length; i++) {
    const path = files[i] as string;
    let stamp = opened(path);
    if (stamp === null) {
      try {
        const st = lstatSync(join(root, path));
        stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
      } catch {
        stamp = 'missing';
      }
    }
    h.update(`${path}\0${stamp}\n`);
  }
  return h.digest('hex');
}

function isCursor(v: unknown): v is Cursor | null {
  if (v === null) return true;
  if (typeof v !== 'object') return false;
  const c = v as Record<string, unknown>;
  if (typeof c['path'] !== 'string') return false;
  if (c['line'] === null && c['column'] === null) return true;
  return Number.isInteger(c['line']) && Number.isInteger(c['column']);
}

/** Checks a token's signature and query; the snapshot checks need the candidate list. */
export function openToken(tokens: TokenCodec, token: string, query: string, revision: string): PageStart {
  const p = tokens.verify(TOKEN_KIND, token);
  const bad = (why: string): ToolgateError => new ToolgateError('invalid_continuation', `continuation token rejected: ${why}`, { reason: why });
  if (p['v'] !== 2 || typeof p['list'] !== 'string' || typeof p['seen'] !== 'string' || typeof p['rev'] !== 'string' || !Number.isInteger(p['before']) || !isCursor(p['cursor'])) {
    throw bad('malformed');
  }
  if (p['q'] !== query) throw bad('issued for another query, mode, options or sort order');
  if (p['rev'] !== revision) {
    throw new ToolgateError('stale_continuation', 'the workspace changed through Toolgate since the previous page', { reason: 'revision', expected: p['rev'], revision });
  }
  return { cursor: p['cursor'] as Cursor | null, before: p['before'] as number, listDigest: p['list'], seenDigest: p['seen'] };
}

export function signToken(tokens: TokenCodec, payload: Omit<TokenPayload, 'v'>): string {
  return tokens.sign(TOKEN_KIND, { v: 2, ...payload });
}
