import { lstatSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { SANDBOX_PROXY_SOCKET } from './net-proxy/bridge.js';
import type { Toolchain } from './toolchains.js';
import { SANDBOX_CACHE_DIR } from './package-caches.js';
import type { WorkspaceMounts } from './workspace-scan.js';
import { sandboxOwnerMark } from './process-table.js';

/**
 * `none`: an empty network namespace (loopback only). `host`: the host's network. `allowlist`:
 * an empty namespace plus the host-side proxy's unix socket, bound in (net-proxy/): HTTP(S) to
 * what the grant allows, nothing else has a route.
 */
export type NetworkMode = 'none' | 'host' | 'allowlist';

/** What the bubblewrap sandbox shows the command. Paths are absolute and real (no links). */
export interface SandboxProfile {
  /** Bound at the same path inside, read-write or read-only. */
  readonly workspace: string;
  readonly workspaceWritable: boolean;
  /** Working directory: the workspace or a directory beneath it. */
  readonly cwd: string;
  readonly network: NetworkMode;
  /** Home directories whose dot-entries (.ssh, .aws, .npmrc, …) are hidden. */
  readonly homes: readonly string[];
  /** Further paths made invisible: the runtime's state dir, credentials elsewhere. */
  readonly hide: readonly string[];
  /** Host uid and gid the command runs as; 0 is root with every capability dropped. */
  readonly user: { readonly uid: number; readonly gid: number };
  /** Secret entries to mask and host-code entries to keep read-only, beneath the workspace (scanWorkspace). */
  readonly workspaceMounts: WorkspaceMounts;
  /** Toolchain directories shown read-only over the hidden home entries, credential stores within them masked. */
  readonly toolchains?: readonly Toolchain[];
  /** The workspace's package-cache folder on the host, bound read-write at SANDBOX_CACHE_DIR (package-caches.ts). */
  readonly cacheDir?: string;
  /** `allowlist`: the host path of this run's proxy socket, bound read-only at SANDBOX_PROXY_SOCKET. */
  readonly proxySocket?: string;
}

/**
 * Files only root may read, which root without capabilities still reads as their owner: hidden
 * when the command runs as uid 0.
 */
export function systemSecrets(): string[] {
  const out = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-'];
  try {
    for (const n of readdirSync('/etc/ssh')) if (/^ssh_host_.*_key$/.test(n)) out.push(join('/etc/ssh', n));
  } catch {
    // no sshd keys
  }
  return out;
}

/** Whether `uid`/`gid` (no supplementary groups: the spawn drops them) can walk to `path`. */
function reachableBy(path: string, uid: number, gid: number): boolean {
  let dir = dirname(path);
  for (;;) {
    try {
      const st = statSync(dir);
      const bits = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
      if ((st.mode & bits) === 0) return false;
    } catch {
      return false;
    }
    if (dir === '/') return true;
    dir = dirname(dir);
  }
}

/**
 * Secret locations to hide. As root: home dot-entries, root-only system files, `hide`. As
 * another uid, only those it could reach: bubblewrap cannot mount where its user cannot walk,
 * and there is nothing to hide from a user the permissions already stop.
 */
function secretsOf(p: SandboxProfile): string[] {
  const all = [...p.homes.flatMap(homeSecrets), ...(p.user.uid === 0 ? systemSecrets() : []), ...p.hide];
  return p.user.uid === 0 ? all : all.filter((s) => reachableBy(s, p.user.uid, p.user.gid));
}

/** `/root`, the current user's home and every `/home/*`: where credentials usually live. */
export function defaultHomes(): string[] {
  const out = new Set<string>(['/root', homedir()]);
  try {
    for (const name of readdirSync('/home')) out.add(join('/home', name));
  } catch {
    // no /home
  }
  return [...out];
}

const RESOLVER_DIR = '/run/systemd/resolve';

type Kind = 'dir' | 'file' | 'missing';

function kindAt(path: string): Kind {
  try {
    // A link is judged by what it points at: bubblewrap mounts over the target.
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    try {
      lstatSync(path);
      return 'file'; // a dangling link: cover it so nothing can be created through it
    } catch {
      return 'missing';
    }
  }
}

function hideArgs(path: string): string[] {
  switch (kindAt(path)) {
    case 'dir':
      return ['--tmpfs', path];
    case 'file':
      return ['--ro-bind', '/dev/null', path];
    case 'missing':
      return [];
  }
}

export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : dir + '/');
}

/**
 * What to cover in one home: its dot-entries, or the whole home when it holds nothing else (one
 * mount instead of a dozen; each costs bubblewrap time on every spawn).
 */
function homeSecrets(home: string): string[] {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return [];
  }
  const dots = names.filter((n) => n.startsWith('.')).sort();
  if (dots.length === 0) return [];
  return dots.length === names.length ? [home] : dots.map((n) => join(home, n));
}

/**
 * The toolchains bubblewrap can bind for this profile's user (it cannot mount where its user
 * cannot walk), outside the workspace (bound on its own terms) and not holding it.
 */
export function toolchainsOf(p: SandboxProfile): Toolchain[] {
  return (p.toolchains ?? []).filter(
    (t) => !isWithin(p.workspace, t.path) && !isWithin(t.path, p.workspace) && (p.user.uid === 0 || (reachableBy(t.path, p.user.uid, p.user.gid) && reachableBy(t.source, p.user.uid, p.user.gid))),
  );
}

/** Credential locations (and hidden paths) beneath an exposed toolchain: hidden again after its bind. */
function toolchainMasks(p: SandboxProfile, toolchains: readonly Toolchain[]): string[] {
  const masks = toolchains.flatMap((t) => [...t.masks, ...p.hide.filter((h) => isWithin(h, t.path))]);
  const reachable = p.user.uid === 0 ? masks : masks.filter((m) => reachableBy(m, p.user.uid, p.user.gid));
  return [...new Set(reachable)];
}

/** A mask over part of a read-only toolchain: read-only itself, so nothing can be written there either. */
function readOnlyHideArgs(path: string): string[] {
  const args = hideArgs(path);
  return args[0] === '--tmpfs' ? [...args, '--remount-ro', path] : args;
}

/**
 * The bubblewrap argument list (before `--` and the command). Order matters: a mount hides
 * what an earlier one showed, so secrets that contain the workspace are hidden before it is
 * bound, and every other secret location after it (the workspace may itself be a home).
 */
export function bwrapArgs(p: SandboxProfile, infoFd: number, blockFd: number | null = null): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // /run holds host sockets (docker, dbus) that a read-only bind does not stop connect() to;
  // with the host network only the resolver's files come back.
  args.push('--tmpfs', '/run');
  if (p.network === 'host' && kindAt(RESOLVER_DIR) === 'dir') args.push('--ro-bind', RESOLVER_DIR, RESOLVER_DIR);
  // The only way out of an allowlist sandbox: a socket to the proxy of this run, which authorizes
  // each connection. A unix socket is reached by path, whatever the network namespace; read-only
  // stops nothing a socket does but keeps the mount point from being replaced.
  if (p.network === 'allowlist') {
    if (p.proxySocket === undefined) throw new Error('network allowlist needs the proxy socket');
    args.push('--ro-bind', p.proxySocket, SANDBOX_PROXY_SOCKET);
  }
  const secrets = secretsOf(p);
  const enclosing = secrets.filter((s) => isWithin(p.workspace, s));
  for (const s of enclosing) args.push(...hideArgs(s));
  args.push(p.workspaceWritable ? '--bind' : '--ro-bind', p.workspace, p.workspace);
  // What the host obeys later stays read-only even in a writable workspace: every `.git` whole
  // (hooks, config, and the entry itself: a mount point cannot be renamed, removed or replaced),
  // and Toolgate's own configuration (an absent one is held by a placeholder, masked below).
  const m = p.workspaceMounts;
  if (p.workspaceWritable) for (const path of m.readOnly) args.push('--ro-bind', path, path);
  // Secret files: /dev/null, read-only and nodev, cannot be opened; as a mount point it cannot be
  // replaced, and a hard link to it crosses a mount (EXDEV). Secret directories: an empty,
  // read-only tmpfs.
  for (const path of m.maskFiles) args.push('--ro-bind', '/dev/null', path);
  for (const path of m.maskDirs) args.push('--tmpfs', path, '--remount-ro', path);
  for (const s of secrets) if (!enclosing.includes(s)) args.push(...hideArgs(s));
  // Toolchains come back read-only over the hidden home entries; the credential stores within
  // them are hidden again after (a later mount covers an earlier one).
  const toolchains = toolchainsOf(p);
  for (const t of toolchains) args.push('--ro-bind', t.source, t.path);
  for (const m of toolchainMasks(p, toolchains)) args.push(...readOnlyHideArgs(m));
  // The workspace's own package caches, writable, at one fixed path: the host's are hidden above
  // (home dot-entries) and another workspace's folder is never bound.
  if (p.cacheDir !== undefined) args.push('--bind', p.cacheDir, SANDBOX_CACHE_DIR);
  args.push('--chdir', p.cwd, '--unshare-all');
  if (p.network === 'host') args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'toolgate', '--info-fd', String(infoFd));
  // Names this runtime on bubblewrap's command line and its init's, changing nothing inside: if
  // the runtime dies before the release, the next one finds and ends the waiting init
  // (sweepOrphanedSandboxes).
  args.push('--unsetenv', sandboxOwnerMark());
  // bubblewrap sets everything up, then waits on this fd before it starts the command.
  if (blockFd !== null) args.push('--block-fd', String(blockFd));
  return args;
}

/**
 * Tells whether a host path can be seen inside the sandbox: not under a hidden location or a
 * private mount (/tmp, /run), unless it is in the workspace, which is bound over them.
 */
export function visibilityOf(p: SandboxProfile): (path: string) => boolean {
  const covered = ['/tmp', '/run', '/proc', '/dev', ...secretsOf(p)];
  const toolchains = toolchainsOf(p);
  const masks = toolchainMasks(p, toolchains);
  return (path) =>
    isWithin(path, p.workspace) ||
    (!masks.some((m) => isWithin(path, m)) && (toolchains.some((t) => isWithin(path, t.path)) || !covered.some((c) => isWithin(path, c))));
}
