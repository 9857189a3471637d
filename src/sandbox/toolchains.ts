import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { ToolgateError } from '../protocol/index.js';

/**
 * Credential stores, relative to a home. Hidden in every sandbox: home dot-entries are hidden
 * whole anyway, and these stay hidden even inside an exposed toolchain directory. A toolchain
 * entry that is one of them, lies inside one or contains one is refused.
 */
export const CREDENTIAL_STORES: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/op',
  '.config/git/credentials',
  '.docker',
  '.kube',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.gnupg',
  '.password-store',
  '.vault-token',
  '.pki',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.terraform.d/credentials.tfrc.json',
  '.local/share/keyrings',
  '.local/share/password-store',
  '.local/share/python_keyring',
  '.mozilla',
  '.thunderbird',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
];

/** A toolchain location, relative to a home; `*` as the last path element matches any name. */
interface ToolchainSpec {
  readonly rel: string;
  /** Directories (relative to the toolchain) put on PATH, first first; `*` matches any name, newest version first. */
  readonly bins: readonly string[];
  /** Variables the toolchain's launchers need (they would look in $HOME, which is /tmp inside). */
  readonly env?: (dir: string, home: string) => Record<string, string>;
  /** Files beneath it that may hold credentials (a global npmrc, pip.conf): masked. */
  readonly masks?: readonly string[];
}

/** The documented default list (docs/shell.md). */
export const DEFAULT_TOOLCHAINS: readonly ToolchainSpec[] = [
  { rel: '.pyenv', bins: ['shims', 'bin'], env: (d) => ({ PYENV_ROOT: d }), masks: ['versions/*/pip.conf', 'versions/*/envs/*/pip.conf', 'versions/*/etc/pip.conf'] },
  { rel: '.rbenv', bins: ['shims', 'bin'], env: (d) => ({ RBENV_ROOT: d }) },
  { rel: '.cargo/bin', bins: ['.'] },
  { rel: '.rustup', bins: [], env: (d) => ({ RUSTUP_HOME: d }) },
  { rel: '.nvm', bins: ['versions/node/*/bin'], env: (d) => ({ NVM_DIR: d }), masks: ['versions/node/*/etc/npmrc'] },
  { rel: '.volta', bins: ['bin'], env: (d) => ({ VOLTA_HOME: d }), masks: ['tools/image/node/*/etc/npmrc', 'tools/image/npm/*/etc/npmrc'] },
  { rel: '.bun/bin', bins: ['.'] },
  { rel: '.deno/bin', bins: ['.'] },
  { rel: '.local/bin', bins: ['.'] },
  { rel: '.local/lib/python*', bins: [], env: (_d, home) => ({ PYTHONUSERBASE: join(home, '.local') }) },
  { rel: 'go/bin', bins: ['.'] },
  { rel: '.sdkman/candidates', bins: ['*/current/bin'], env: (d) => ({ SDKMAN_DIR: join(d, '..'), SDKMAN_CANDIDATES_DIR: d }) },
];

/** One exposed toolchain directory: bound read-only at its own path. */
export interface Toolchain {
  /** Where it appears inside (the path under the home, as listed). */
  readonly path: string;
  /** What is bound there (the real path on the host). */
  readonly source: string;
  readonly bins: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Credential locations beneath `path`, hidden after the bind. */
  readonly masks: readonly string[];
}

/** Configured toolchains: `~/` paths (in every home) or absolute paths; whether the default list applies. */
export interface ToolchainConfig {
  readonly defaults?: boolean;
  readonly extra?: readonly string[];
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : dir + '/');
}

// These probes run for every command (a hundred or so paths per home, most of them absent): an
// absent path is answered without a thrown error, whose stack capture cost ~10 µs a path.
function realOrNull(path: string): string | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ? realpathSync(path) : null;
  } catch {
    return null;
  }
}

/** Present, as a file, directory or link (a dangling link is covered too). */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/**
 * Newest version first: `v20.11.0` before `v18.19.0`, `3.12` before `3.9`. One collator for all:
 * `localeCompare` with options builds one per comparison, a third of the toolchain lookup every
 * shell run does (460 -> 312 µs a run here).
 */
const byVersion = new Intl.Collator('en', { numeric: true });

/** Expands a relative pattern whose elements may be `*` (or end in `*`) against `base`: existing paths only. */
function expand(base: string, rel: string): string[] {
  let out = [base];
  for (const part of normalize(rel).split('/')) {
    if (part === '.' || part === '') continue;
    if (!part.includes('*')) {
      out = out.map((p) => join(p, part));
      continue;
    }
    const prefix = part.slice(0, part.indexOf('*'));
    out = out.flatMap((p) => {
      if (!isDir(p)) return [];
      try {
        return readdirSync(p)
          .filter((n) => n.startsWith(prefix) && !n.startsWith('.'))
          .sort((a, b) => byVersion.compare(b, a))
          .map((n) => join(p, n));
      } catch {
        return [];
      }
    });
  }
  return out;
}

/** Every credential store of these homes, as listed and as resolved (a store may be a link). */
function credentialPaths(homes: readonly string[]): string[] {
  const out = new Set<string>();
  for (const home of homes) {
    for (const rel of CREDENTIAL_STORES) {
      const p = join(home, rel);
      out.add(p);
      const real = realOrNull(p);
      if (real) out.add(real);
    }
  }
  return [...out];
}

/** The credential store (of `creds`, from credentialPaths) a path is, lies in or contains; null when none. */
function exposedAmong(path: string, creds: readonly string[]): string | null {
  const seen = [path, realOrNull(path)].filter((p): p is string => p !== null);
  for (const c of creds) if (seen.some((p) => within(p, c) || within(c, p))) return c;
  return null;
}

/** The credential store a path is, lies in or contains; null when none. */
export function credentialExposedBy(path: string, homes: readonly string[]): string | null {
  return exposedAmong(path, credentialPaths(homes));
}

function refuse(path: string, message: string, credential: string | null): never {
  throw new ToolgateError('invalid_resource', `sandbox.toolchains: ${path}: ${message}`, {
    option: 'sandbox.toolchains',
    path,
    credential,
    reason: credential === null ? 'not_absolute' : 'exposes_credentials',
  });
}

/** The configured paths in each home (`~/x`) or as given (absolute). */
function configuredPaths(entry: string, homes: readonly string[]): string[] {
  if (entry === '~' || entry.startsWith('~/')) return homes.map((h) => join(h, entry.slice(1)));
  if (!isAbsolute(entry)) refuse(entry, 'must be absolute or start with ~/', null);
  return [normalize(entry)];
}

/**
 * Refuses, at start, a configured entry that would expose a credential store (`~`, `~/.config`,
 * `~/.cargo`, a link to `~/.ssh`, …) with `invalid_resource` (`reason: exposes_credentials`).
 */
export function checkToolchainConfig(config: ToolchainConfig, homes: readonly string[]): void {
  const creds = credentialPaths(homes);
  for (const entry of config.extra ?? []) {
    for (const p of configuredPaths(entry, homes)) {
      const c = exposedAmong(p, creds);
      if (c !== null) refuse(entry, `would expose the credential store ${c}; name a directory that holds no credentials (e.g. its bin/)`, c);
    }
  }
}

/**
 * The toolchains that exist now in these homes. One that is, lies in or contains a credential
 * store is dropped whole (a configured one was refused at start; a path may have become a link
 * since, or a store may have appeared in it).
 */
export function resolveToolchains(config: ToolchainConfig, homes: readonly string[]): Toolchain[] {
  const out: Toolchain[] = [];
  const taken = new Set<string>();
  const creds = credentialPaths(homes); // once per run: a few dozen realpath calls per home
  const add = (path: string, home: string | null, spec: ToolchainSpec | null): void => {
    const source = realOrNull(path);
    if (source === null || taken.has(path) || !isDir(source) || exposedAmong(path, creds) !== null) return;
    taken.add(path);
    // A configured `…/bin` goes on PATH itself; another directory by its `bin/`, when it has one.
    const bins = (spec ? spec.bins.flatMap((b) => expand(path, b)) : [path.endsWith('/bin') ? path : join(path, 'bin')]).filter(isDir);
    // A credential store beneath it was ruled out above (the whole toolchain is then not shown);
    // these are the files a toolchain itself keeps that may hold one (a global npmrc, pip.conf).
    const masks = (spec?.masks ?? []).flatMap((m) => expand(path, m)).filter(exists);
    out.push({ path, source, bins, env: spec?.env && home ? spec.env(path, home) : {}, masks: [...new Set(masks)] });
  };
  for (const home of homes) {
    if (config.defaults === false) break;
    for (const spec of DEFAULT_TOOLCHAINS) for (const path of expand(home, spec.rel)) add(path, home, spec);
  }
  for (const entry of config.extra ?? []) for (const path of configuredPaths(entry, homes)) add(path, null, null);
  return out;
}

/**
 * The environment with the toolchains' bin directories ahead of PATH and their variables added
 * (a variable the call set itself is kept). When the call's HOME is one of the homes, its
 * toolchains come first, as in that user's own shell.
 */
export function withToolchainEnv(env: Readonly<Record<string, string>>, all: readonly Toolchain[]): Record<string, string> {
  const out: Record<string, string> = { ...env };
  const home = env['HOME'];
  const mine = (t: Toolchain): boolean => home !== undefined && within(t.path, home);
  const toolchains = [...all.filter(mine), ...all.filter((t) => !mine(t))];
  const bins = toolchains.flatMap((t) => t.bins);
  if (bins.length) out['PATH'] = [...bins, ...(env['PATH'] ? [env['PATH']] : [])].join(':');
  for (const t of toolchains) for (const [k, v] of Object.entries(t.env)) if (!(k in out)) out[k] = v;
  return out;
}

/** A toolchain a run was shown, as its receipt records it (docs/shell.md#package-caches). */
export interface ToolchainUse {
  /** Where it appears inside the sandbox (its path under the home, as listed). */
  readonly path: string;
  /** The real directory bound there. */
  readonly source: string;
  /** The version its directory names (`v20.11.0` of `.nvm/versions/node/v20.11.0/bin`), null when it names none (shims). */
  readonly version: string | null;
  /** Whether the command's own executable (argv[0], resolved on PATH) lies in it. */
  readonly used: boolean;
}

const VERSION_IN_NAME = /(?:^|[^0-9])(v?\d+(?:\.\d+)+(?:[-+][\w.]+)?)$/;

/** The version a toolchain's first (newest) bin directory names, read from its real path: no toolchain program is run. */
function versionOf(t: Toolchain): string | null {
  const dirs = [...t.bins, t.path];
  for (const dir of dirs) {
    const real = realOrNull(dir) ?? dir;
    for (const part of real.split('/').reverse()) {
      const m = VERSION_IN_NAME.exec(part);
      if (m?.[1]) return m[1];
    }
  }
  return null;
}

/**
 * What a receipt records of the toolchains a run was shown: each one's resolved directory and
 * version, and which one holds the command's executable. Read from paths only (cheap, and no
 * toolchain program runs on the host).
 */
export function toolchainUses(toolchains: readonly Toolchain[], executable: string | null): ToolchainUse[] {
  const real = executable === null ? null : (realOrNull(executable) ?? executable);
  return toolchains.map((t) => ({
    path: t.path,
    source: t.source,
    version: versionOf(t),
    used: executable !== null && (t.bins.some((b) => within(executable, b)) || (real !== null && within(real, t.source))),
  }));
}
