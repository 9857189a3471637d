// How a local (stdio) upstream runs: under the same bubblewrap profile as shell.exec, with its
// data dir as the only writable place (bound where the workspace would be), the workspace and
// the runtime's state dir hidden, home dot-entries hidden, all capabilities dropped, a new pid
// namespace (killing bubblewrap ends every process of the server), and no network unless the
// configuration says `host`.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { ToolgateError } from '../protocol/index.js';
import { NO_WORKSPACE_MOUNTS, Sandbox, bwrapArgs, defaultHomes, resolveToolchains, type SandboxProfile } from '../sandbox/index.js';
import type { StdioUpstream } from './config.js';

export interface LaunchContext {
  /** Paths the server must never see: the state dir, and the workspace unless it is shown. */
  readonly hide: readonly string[];
  /** The workspace, for `workspace: "read-only"`: its real root and the runtime's path classes (secret files masked). */
  readonly workspace?: { readonly root: string; readonly classify: (relPath: string) => 'ordinary' | 'secret' | 'protected' };
  /** Toolgate's environment, where `{ from_env }` values are read. */
  readonly env: NodeJS.ProcessEnv;
}

export interface Launch {
  readonly command: string;
  readonly args: string[];
  /** Passed through the process environment, never argv (argv is readable by every local user). */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  /** Whether the data dir is Toolgate's own, removed on shutdown. */
  readonly ownsDataDir: boolean;
}

const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Variables StdioClientTransport adds from Toolgate's own environment: not the server's unless configured. */
const TRANSPORT_DEFAULTS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

const inside = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * What the server's own program needs to see, read-only: the command and every argument that is
 * an absolute path (a script, a package's entry point), each as its directory, and the nearest
 * `node_modules` above it (where a script's imports resolve). The sandbox gives a private /tmp and
 * hides home dot-entries, so a server installed under either would not start otherwise. Nothing
 * inside (or around) a hidden path is bound: the state dir and the workspace stay out of reach.
 */
export function programMounts(u: Pick<StdioUpstream, 'command' | 'args'>, hide: readonly string[]): string[] {
  const out = new Set<string>();
  for (const word of [u.command, ...u.args]) {
    if (!isAbsolute(word) || !existsSync(word)) continue;
    const file = realpathSync(word);
    const dir = statSync(file).isDirectory() ? file : dirname(file);
    const modules = dir.split(sep).lastIndexOf('node_modules');
    const candidates = [dir];
    if (modules > 0) candidates.push(dir.split(sep).slice(0, modules + 1).join(sep));
    else {
      for (let up = dir; up !== dirname(up); up = dirname(up)) {
        if (existsSync(resolve(up, 'node_modules'))) {
          candidates.push(resolve(up, 'node_modules'));
          break;
        }
      }
    }
    for (const c of candidates) {
      if (c === sep || hide.some((h) => inside(c, h) || inside(h, c))) continue;
      out.add(c);
    }
  }
  return [...out].sort();
}

/** The sandboxed command line for one stdio upstream. */
export function launchOf(name: string, u: StdioUpstream, ctx: LaunchContext): Launch {
  const probe = new Sandbox({ workspace: '/' });
  if (probe.level() !== 'bwrap' || probe.host.bwrap === null) {
    throw new ToolgateError('isolation_unavailable', `upstream ${name} runs under bubblewrap, which this host lacks`, { isolation: 'none', missing: 'bwrap' });
  }
  const ownsDataDir = u.data_dir === undefined;
  const dataDir = ownsDataDir ? mkdtempSync(resolve(tmpdir(), `toolgate-upstream-${name}-`)) : resolve(u.data_dir as string);
  mkdirSync(dataDir, { recursive: true });
  const real = realpathSync(dataDir);
  const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const homes = defaultHomes();
  const shown = u.workspace === 'read-only' ? ctx.workspace : undefined;
  if (u.workspace === 'read-only' && shown === undefined) throw new TypeError(`upstream ${name}: workspace read-only needs the runtime's workspace`);
  const profile: SandboxProfile = shown
    ? {
        // The workspace as shell.exec shows it read-only (secret files and directories masked);
        // the data dir is bound writable after it.
        workspace: shown.root,
        workspaceWritable: false,
        cwd: real,
        network: u.network,
        homes,
        hide: ctx.hide.filter((h) => h !== real && h !== shown.root),
        user: self,
        workspaceMounts: new Sandbox({ workspace: shown.root, classify: shown.classify }).workspaceMounts(self, []),
        toolchains: resolveToolchains({}, homes),
      }
    : {
        workspace: real,
        workspaceWritable: true,
        cwd: real,
        network: u.network,
        homes,
        hide: ctx.hide.filter((h) => h !== real),
        user: self,
        workspaceMounts: NO_WORKSPACE_MOUNTS,
        toolchains: resolveToolchains({}, homes),
      };
  // shell.exec reads bubblewrap's --info-fd on fd 3; the MCP transport opens only stdio, and the
  // pid namespace's end comes from killing bubblewrap (--die-with-parent on its init).
  const args = bwrapArgs(profile, 3);
  const info = args.indexOf('--info-fd');
  if (info >= 0) args.splice(info, 2);
  // Mount operations run in argument order: this bind comes after every mask and hidden path.
  if (shown) args.push('--bind', real, real);
  for (const p of programMounts(u, ctx.hide)) args.push('--ro-bind', p, p);
  const env: Record<string, string> = {};
  const set: string[] = [];
  for (const [k, v] of Object.entries(u.env)) {
    const value = typeof v === 'string' ? v : ctx.env[v.from_env];
    if (value !== undefined) env[k] = value;
  }
  // Not a secret: argv is fine for these.
  if (!('PATH' in env)) set.push('--setenv', 'PATH', SANDBOX_PATH);
  if (!('HOME' in env)) set.push('--setenv', 'HOME', real);
  const unset = TRANSPORT_DEFAULTS.filter((k) => !(k in env) && k !== 'PATH' && k !== 'HOME').flatMap((k) => ['--unsetenv', k]);
  return { command: probe.host.bwrap, args: [...args, ...set, ...unset, '--', u.command, ...u.args], env, dataDir: real, ownsDataDir };
}
