// Agents give absolute paths (Claude Code, the Anthropic editor, Codex's workdir). One beneath
// the workspace root becomes the workspace-relative path Toolgate's tools take; a relative one is
// taken as it is; any other absolute path is passed on unchanged, so the runtime's normalize
// stage refuses it (`path_escape`) with a receipt: a profile makes no security decision of its own.
import { isAbsolute, join, relative } from 'node:path';

export function workspacePath(given: string, root: string): string {
  if (!isAbsolute(given)) return given;
  const rel = relative(root, given);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return given;
  return rel;
}

/** Whether a path the agent gave lies outside the workspace (lexically; the runtime re-checks links). */
export function outsideWorkspace(given: string, root: string): boolean {
  return isAbsolute(workspacePath(given, root));
}

/** A workspace-relative path as the agent sees it: absolute, beneath the root. */
export function absolutePath(rel: string, root: string): string {
  return rel === '.' || rel === '' ? root : join(root, rel);
}
