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

/** Directory names whose contents are protected from writes at any depth (hooks and config run code). */
export const DEFAULT_PROTECTED_DIRS: readonly string[] = ['.git'];

/**
 * Workspace-relative files that configure Toolgate itself: an agent that could write them would
 * choose its own grant at the next start.
 */
export const DEFAULT_PROTECTED_FILES: readonly string[] = ['toolgate.config.json'];

export type PathClass = 'secret' | 'protected' | 'ordinary';

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*').replaceAll('?', '[^/]');
  return new RegExp(`^${body}$`);
}

export class PathClassifier {
  readonly #names: RegExp[] = [];
  readonly #dirs: string[] = [];
  readonly #multi: string[] = [];
  readonly #protected: ReadonlySet<string>;

  /**
   * The configured lists are added to the defaults, never replace them: a configuration can
   * make more paths secret or protected, not fewer (deny by default).
   */
  constructor(extraSecretPatterns: readonly string[] = [], extraProtectedDirs: readonly string[] = []) {
    const secretPatterns = [...DEFAULT_SECRET_PATTERNS, ...extraSecretPatterns];
    this.#protected = new Set([...DEFAULT_PROTECTED_DIRS, ...extraProtectedDirs]);
    for (const p of secretPatterns) {
      if (p.endsWith('/')) this.#dirs.push(p.slice(0, -1));
      else if (p.includes('/')) this.#multi.push(p);
      else this.#names.push(globToRegExp(p));
    }
  }

  /** `secret` for secret files and anything inside a secret directory; `protected` in or under a `.git` at any depth. */
  classify(path: string): PathClass {
    const parts = path.split('/');
    if (parts.some((p) => this.#protected.has(p)) || DEFAULT_PROTECTED_FILES.includes(path)) return 'protected';
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
