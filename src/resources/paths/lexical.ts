import { ToolgateError } from '../../protocol/index.js';

export const MAX_PATH_BYTES = 4096;
export const MAX_COMPONENT_BYTES = 255;

/**
 * Lexical normalization of a caller's path into components beneath the root. This is only the
 * first step: it settles `.`, `..` and absolute forms; the walk (openBeneath) settles links.
 * An absolute path is accepted only when it lies beneath one of the root's spellings.
 */
export function lexicalComponents(input: unknown, rootSpellings: readonly string[]): string[] {
  if (typeof input !== 'string') throw new ToolgateError('invalid_resource', 'path must be a string', { path: null });
  if (input.length === 0) throw new ToolgateError('invalid_resource', 'path is empty', { path: input });
  if (input.includes('\0')) throw new ToolgateError('invalid_resource', 'path contains a NUL byte', { path: input });
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) throw new ToolgateError('invalid_resource', 'path is too long', { path: input.slice(0, 200) });
  let rel = input;
  if (input.startsWith('/')) {
    const root = rootSpellings.find((r) => input === r || input.startsWith(r.endsWith('/') ? r : r + '/'));
    if (root === undefined) {
      throw new ToolgateError('path_escape', 'absolute path outside the workspace root', { path: input });
    }
    rel = input.slice(root.length);
  }
  const out: string[] = [];
  for (const part of rel.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new ToolgateError('path_escape', 'path climbs above the workspace root', { path: input });
      out.pop();
      continue;
    }
    if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES) throw new ToolgateError('invalid_resource', 'path component is too long', { path: input.slice(0, 200) });
    out.push(part);
  }
  return out;
}

export function joinComponents(parts: readonly string[]): string {
  return parts.length === 0 ? '.' : parts.join('/');
}
