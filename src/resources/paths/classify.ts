// Secret and protected paths. One classification, used by every tool that reads, writes,
// searches or executes (docs/paths.md lists the rules).
import picomatch from 'picomatch';

/**
 * Path patterns that hold secrets (picomatch globs, dotfiles included). A pattern is matched
 * against the workspace-relative path at any depth unless it starts with `/` (then from the
 * root); one that ends with `/` names a directory: it and everything inside it.
 */
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

/** The whole-path globs one secret pattern stands for (docs/paths.md, "Secret and protected paths"). */
export function secretGlobsOf(pattern: string): string[] {
  const anchored = pattern.startsWith('/');
  const body = anchored ? pattern.slice(1) : `**/${pattern}`;
  if (!body.endsWith('/')) return [body];
  const dir = body.slice(0, -1);
  return [dir, `${dir}/**`];
}

/**
 * How a path is tested, fastest first (same answers as matching each glob of `secretGlobsOf`
 * against the whole path; a property test compares the two): a literal directory name is looked
 * up among the components, a pattern without `/` is tested against the last component only,
 * and the rest form one alternation over the whole path. picomatch compiles every glob with
 * `dot: true`, so `*` and `**` match dotfiles and dot directories as the defaults need.
 */
interface SecretMatcher {
  readonly dirNames: ReadonlySet<string>;
  readonly name: RegExp | null;
  readonly path: RegExp | null;
}

function alternation(globs: readonly string[]): RegExp | null {
  if (globs.length === 0) return null;
  return new RegExp(globs.map((g) => `(?:${picomatch.makeRe(g, { dot: true }).source})`).join('|'));
}

function secretMatcherOf(patterns: readonly string[]): SecretMatcher {
  const dirNames = new Set<string>();
  const names: string[] = [];
  const paths: string[] = [];
  for (const p of patterns) {
    const single = p.endsWith('/') ? p.slice(0, -1) : p;
    if (single.includes('/') || single === '') paths.push(...secretGlobsOf(p));
    else if (p.endsWith('/') && !picomatch.scan(single).isGlob) dirNames.add(single);
    else if (p.endsWith('/')) paths.push(...secretGlobsOf(p));
    else names.push(p);
  }
  return { dirNames, name: alternation(names), path: alternation(paths) };
}

export class PathClassifier {
  readonly #secret: SecretMatcher;
  readonly #protected: ReadonlySet<string>;

  /**
   * The configured lists are added to the defaults, never replace them: a configuration can
   * make more paths secret or protected, not fewer (deny by default).
   */
  constructor(extraSecretPatterns: readonly string[] = [], extraProtectedDirs: readonly string[] = []) {
    this.#secret = secretMatcherOf([...DEFAULT_SECRET_PATTERNS, ...extraSecretPatterns]);
    this.#protected = new Set([...DEFAULT_PROTECTED_DIRS, ...extraProtectedDirs]);
  }

  /** `secret` for secret files and anything inside a secret directory; `protected` in or under a `.git` at any depth. */
  classify(path: string): PathClass {
    const parts = path.split('/');
    if (parts.some((p) => this.#protected.has(p)) || DEFAULT_PROTECTED_FILES.includes(path)) return 'protected';
    const { dirNames, name, path: whole } = this.#secret;
    if (dirNames.size > 0 && parts.some((p) => dirNames.has(p))) return 'secret';
    if (name?.test(parts[parts.length - 1] as string)) return 'secret';
    return whole?.test(path) ? 'secret' : 'ordinary';
  }
}
