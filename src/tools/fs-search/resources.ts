// What a search reads, for authorization: the directories its include globs are confined to.
// A search confined to `src/**` reads beneath `src` only, so a grant of `src/**` covers it; a
// search with no include, or one whose glob can match anywhere (`*.ts`), reads the root `.`.
import type { Resource } from '../../protocol/index.js';
import { joinComponents, lexicalComponents } from '../../resources/index.js';

const GLOB_CHARS = /[*?[\]{}()!+@\\]/;

/** The literal leading directories of a glob with a slash, or null when it can match anywhere. */
export function staticBase(glob: string, rootSpellings: readonly string[]): string | null {
  if (!glob.includes('/')) return null;
  const parts = glob.split('/');
  const literal: string[] = [];
  for (const part of parts) {
    if (GLOB_CHARS.test(part)) break;
    literal.push(part);
  }
  if (literal.length === 0 || literal.every((p) => p === '' || p === '.')) return null;
  return joinComponents(lexicalComponents(literal.join('/'), rootSpellings));
}

export function searchResources(include: readonly string[] | undefined, root: string): Resource[] {
  const bases = new Set<string>();
  for (const glob of include ?? []) {
    const base = staticBase(glob, [root]);
    if (base === null || base === '.') return [{ kind: 'path', path: '.', access: 'read' }];
    bases.add(base);
  }
  if (bases.size === 0) return [{ kind: 'path', path: '.', access: 'read' }];
  return [...bases].sort().map((path) => ({ kind: 'path', path, access: 'read' }));
}
