// Codex gives absolute working directories; one beneath the workspace becomes Toolgate's relative
// path, any other is passed on as it is so the runtime refuses it (path_escape) with a receipt.
import { isAbsolute, relative } from 'node:path';

export function workspacePath(given: string, root: string): string {
  if (!isAbsolute(given)) return given;
  const rel = relative(root, given);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return given;
  return rel;
}
