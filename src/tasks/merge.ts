// The parent's side of a result: each path the child changed, merged three ways (base = the
// input revision, ours = the parent's file now, theirs = the child's). Nothing is written unless
// every path merges; a conflict is reported with its paths, never resolved by overwriting.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from './git.js';
import { blobAt, type Repository } from './worktree.js';

export type PathMerge =
  | { readonly path: string; readonly kind: 'unchanged' }
  | { readonly path: string; readonly kind: 'write'; readonly data: Buffer }
  | { readonly path: string; readonly kind: 'delete' }
  | { readonly path: string; readonly kind: 'conflict'; readonly reason: 'both_changed' | 'added_on_both' | 'deleted_and_changed' };

function same(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a).equals(Buffer.from(b));
}

/** git merge-file on three temporary files: the merged text, or null when the hunks conflict. */
async function mergeText(base: Buffer, ours: Uint8Array, theirs: Buffer): Promise<Buffer | null> {
  // Asynchronous: the three sides may be up to 64 MiB each, written while the server serves others.
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-merge-'));
  try {
    const [o, b, t] = ['ours', 'base', 'theirs'].map((n) => join(dir, n)) as [string, string, string];
    await Promise.all([writeFile(o, ours), writeFile(b, base), writeFile(t, theirs)]);
    const r = await git(dir, ['merge-file', '-p', '--quiet', o, b, t]);
    return r.code === 0 ? r.stdout : null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Decides one path; `ours` is what the parent's workspace holds now (null: absent). */
export async function mergePath(repo: Repository, input: string, result: string, path: string, ours: Uint8Array | null): Promise<PathMerge> {
  const base = await blobAt(repo, input, path);
  const theirs = await blobAt(repo, result, path);
  if (same(ours, theirs)) return { path, kind: 'unchanged' };
  if (same(ours, base)) return theirs === null ? { path, kind: 'delete' } : { path, kind: 'write', data: theirs };
  if (base === null) return { path, kind: 'conflict', reason: 'added_on_both' };
  if (ours === null || theirs === null) return { path, kind: 'conflict', reason: 'deleted_and_changed' };
  const merged = await mergeText(base, ours, theirs);
  return merged === null ? { path, kind: 'conflict', reason: 'both_changed' } : { path, kind: 'write', data: merged };
}
