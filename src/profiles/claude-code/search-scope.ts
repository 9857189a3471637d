// Grep's and Glob's `path` as fs.search globs: fs.search searches the workspace and filters by
// workspace-relative globs, so a directory becomes `dir/**` and a file its own path. A path
// outside the workspace is refused here, before any call: no search glob can name it.
import type { Refusal } from '../profile.js';
import { outsideWorkspace, workspacePath } from '../paths.js';

/** `prefix`: the scope as a glob-escaped workspace-relative path, null for the whole workspace. */
export type Scope = { readonly prefix: string | null } | { readonly refuse: Refusal };

/** Glob metacharacters are escaped so a directory named `a[1]` is that directory. */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, (c) => `\\${c}`);
}

export function scopeOf(path: string | undefined, root: string): Scope {
  if (path === undefined) return { prefix: null };
  if (outsideWorkspace(path, root)) {
    return { refuse: { code: 'path_escape', text: `Path ${path} is outside the workspace ${root}; only files beneath it can be reached.` } };
  }
  const rel = workspacePath(path, root).replace(/\/+$/, '').replace(/^\.\//, '');
  if (rel === '.' || rel === '') return { prefix: null };
  return { prefix: escapeGlob(rel) };
}
