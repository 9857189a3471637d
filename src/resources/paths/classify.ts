// Secret and protected paths. One classification, used by every tool that reads, writes,
// searches or executes (docs/paths.md lists the rules).

/** Path patterns (workspace-relative, matched per component or suffix) that hold secrets. */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = [
  '.env',
  '.env.*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  'id_ecdsa*',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '.git-credentials',
  '.aws/',
  '.ssh/',
  '.gnupg/',
  '.docker/config.json',
];

export type PathClass = 'secret' | 'protected' | 'ordinary';

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*').replaceAll('?', '[^/]');
  return new RegExp(`^${body}$`);
}

export class PathClassifier {
  readonly #names: RegExp[] = [];
  readonly #dirs: string[] = [];
  readonly #multi: string[] = [];

  constructor(secretPatterns: readonly string[] = DEFAULT_SECRET_PATTERNS) {
    for (const p of secretPatterns) {
      if (p.endsWith('/')) this.#dirs.push(p.slice(0, -1));
      else if (p.includes('/')) this.#multi.push(p);
      else this.#names.push(globToRegExp(p));
    }
  }

  /** `secret` for secret files and anything inside a secret directory; `protected` under `.git/`. */
  classify(path: string): PathClass {
    const parts = path.split('/');
    if (parts[0] === '.git') return 'protected';
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      if (i < parts.length - 1 && this.#dirs.includes(part)) return 'secret';
      if (i === parts.length - 1 && this.#dirs.includes(part)) return 'secret';
      if (i === parts.length - 1 && this.#names.some((r) => r.test(part))) return 'secret';
    }
    for (const m of this.#multi) {
      if (path === m || path.endsWith('/' + m)) return 'secret';
    }
    return 'ordinary';
  }
}
