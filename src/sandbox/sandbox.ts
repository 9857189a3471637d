import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ToolgateError } from '../protocol/index.js';
import { DEFAULT_PROTECTED_DIRS, DEFAULT_PROTECTED_FILES, PathClassifier, type PathClass } from '../resources/index.js';
import type { ArtifactWriter } from '../registry/index.js';
import { SandboxCgroups } from './cgroups.js';
import { PTY_PATH, resolveCommand, shellQuote } from './command.js';
import { SANDBOX_CACHE_DIR, cacheBindable, packageCacheEnv, preparePackageCache } from './package-caches.js';
import { detectHost, type Host } from './host.js';
import { fileSizeBlocks, FSIZE_BLOCK, withDefaults, type LimitsRequest, type LimitInForce, type LimitsInForce, type ResourceLimits } from './limits.js';
import { bwrapArgs, defaultHomes, toolchainsOf, visibilityOf, type NetworkMode, type SandboxProfile } from './profile.js';
import type { StreamName, StreamSummary } from './stream-capture.js';
import { supervise, type ExitReason, type OutputChunk } from './supervise.js';
import { wrapperScript, type WrapperShell } from './wrapper.js';
import { BlockPipe } from './block-fd.js';
import { SPARE_BLOCK_FD, SPARE_INFO_FD, SPARE_SCRIPT_MAX, SpareWrapper, type SpareKey } from './spare.js';
import { installHint, SYSTEM_PACKAGES } from './install-hint.js';
import { holdAbsentPaths, sweepAbandonedPlaceholders, type PlaceholderLease } from './placeholder.js';
import { checkToolchainConfig, resolveToolchains, toolchainUses, withToolchainEnv, type ToolchainConfig, type ToolchainUse } from './toolchains.js';
import { NetProxy, bridgeArgv, bridgeUnsetenv, proxyEnv, type NetProxyLimits, type NetworkReport } from './net-proxy/index.js';
import type { DestinationGrant, HostResolver } from '../resources/index.js';
import { NO_WORKSPACE_MOUNTS, ScanCache, scanWorkspace, scanWorkspacePaced, type ScanLimits, type ScanOptions, type WorkspaceMounts } from './workspace-scan.js';

/** Top-level entries the host obeys later: held by a placeholder while a writable run lasts, when absent. */
export const HOST_CODE_ENTRIES: readonly string[] = [...DEFAULT_PROTECTED_DIRS, ...DEFAULT_PROTECTED_FILES];

export type IsolationLevel = 'bwrap' | 'process';

/** How the command was isolated; recorded in the receipt. */
export interface IsolationReport {
  readonly level: IsolationLevel;
  readonly network: NetworkMode;
  readonly workspace: 'read-write' | 'read-only';
  /** `none`: every capability dropped. `inherited`: process isolation keeps the runtime's. */
  readonly capabilities: 'none' | 'inherited';
  /** Host uid the command ran as (0: root without capabilities under bubblewrap). */
  readonly uid: number;
}

export interface SandboxOptions {
  /** The workspace root (a real path); bound at the same path inside. */
  readonly workspace: string;
  /** Paths to make invisible besides home dot-entries: the runtime's state dir, above all. */
  readonly hide?: readonly string[];
  /** Homes whose dot-entries are hidden. Default: /root, the user's home, /home/*. */
  readonly homes?: readonly string[];
  /** Where bubblewrap is; null: pretend it is absent. Default /usr/bin/bwrap, then PATH. */
  readonly bwrapPath?: string | null;
  /** Run without bubblewrap (process group + rlimits + cgroup) when it is missing. Default false. */
  readonly allowProcessIsolation?: boolean;
  /**
   * `workspace-owner` (default): a root runtime runs commands as the owner of the workspace when
   * that is not root, so root-only files stay unreadable by permission. `self`: as the runtime.
   */
  readonly runAs?: 'workspace-owner' | 'self';
  /** Between SIGTERM to the process group and SIGKILL to the namespace. Default 1000 ms. */
  readonly graceMs?: number;
  /**
   * Measure CPU time and peak memory in cpuacct and memory cgroups (default true). Joining each
   * costs the wrapper a cgroup migration; false keeps only the pids cap.
   */
  readonly measure?: boolean;
  readonly previewHeadBytes?: number;
  readonly previewTailBytes?: number;
  /**
   * Workspace-relative path → class, for the scan before each run: `secret` entries are masked,
   * `protected` ones bound read-only. Default: the built-in classification (pass the runtime's
   * `workspace.classifier` so configured patterns count).
   */
  readonly classify?: (relPath: string) => PathClass;
  /** Bounds of that scan; past them the run is refused (`limit_exceeded`). */
  readonly scanLimits?: ScanLimits;
  /**
   * Toolchain directories of the homes shown read-only (docs/shell.md: the default list, plus
   * configured paths). Default: the default list. An entry that would expose a credential store
   * throws `invalid_resource` here.
   */
  readonly toolchains?: ToolchainConfig;
  /**
   * The workspace's package-cache folder on the host (the runtime's `<state dir>/cache/<workspace
   * id>`): npm, pip, cargo and go caches point there (package-caches.ts). Unset: no cache env.
   */
  readonly cacheDir?: string;
  /**
   * Keep one wrapper spawned ahead, already in the next run's cgroups (spare.ts): the spawn and
   * the cgroup migration leave the call's path. Used under bubblewrap with a pids cgroup, without
   * the network allowlist. Default false: whoever turns it on calls `close()` when done (a spare
   * left waiting ends only with this process).
   */
  readonly spare?: boolean;
  /**
   * Watch the workspace's directories with inotify between runs (ScanCache in
   * workspace-scan.ts): a run's scan for secret and protected entries then looks only at the
   * directories that changed since the last one. Default false: whoever turns it on calls
   * `close()` when done (an inotify instance is a descriptor, 128 per user by default).
   */
  readonly watchWorkspace?: boolean;
}

export interface RunRequest {
  readonly argv: readonly string[];
  /** Absolute; the workspace or beneath it. */
  readonly cwd: string;
  /** The command's whole environment (nothing else passes). */
  readonly env: Readonly<Record<string, string>>;
  readonly stdin?: Buffer | null;
  readonly timeoutMs: number;
  readonly idleTimeoutMs?: number | null;
  readonly limits?: LimitsRequest;
  readonly network?: NetworkMode;
  readonly workspaceWritable?: boolean;
  /** Values replaced in everything recorded (previews, artifacts). */
  readonly secrets?: readonly string[];
  readonly signal?: AbortSignal;
  /** Where streams that outgrow the preview go, e.g. `ctx.artifacts.writer(...)`. */
  readonly openArtifact?: (stream: StreamName) => ArtifactWriter;
  readonly onChunk?: (c: OutputChunk) => void;
  /**
   * Run under a pseudo-terminal (util-linux `script` inside the sandbox): stdout and stderr
   * become one terminal stream, with CRLF line ends. Throws `unsupported` without `script`.
   */
  readonly pty?: boolean;
  /**
   * `ctx.markSent`: must resolve before the command may start. Under bubblewrap it runs while
   * bubblewrap sets the sandbox up (the command waits on its block fd); otherwise before the spawn.
   */
  readonly onSpawn?: () => void | Promise<void>;
  /**
   * A command of Toolgate's own with a fixed argv (the `git status` around a run). On a
   * read-only workspace it skips the workspace scan and its masks; ignored when writable.
   */
  readonly internal?: boolean;
  /**
   * Put the exposed toolchains' bin directories ahead of `env.PATH` and add their variables
   * (PYENV_ROOT, RUSTUP_HOME, …) that `env` does not set. Default false: `env` is taken as is.
   */
  readonly toolchainEnv?: boolean;
  /** With `network: allowlist`: what the run's proxy authorizes each connection against. */
  readonly proxy?: {
    readonly grant: DestinationGrant;
    readonly resolver: HostResolver;
    readonly limits?: Partial<NetProxyLimits>;
  };
}

export interface RunResult {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly reason: ExitReason;
  readonly duration_ms: number;
  readonly cpu_ms: number | null;
  readonly peak_rss_bytes: number | null;
  readonly isolation: IsolationReport;
  readonly limits: LimitsInForce;
  readonly stdout: StreamSummary;
  readonly stderr: StreamSummary;
  readonly killed_after_exit: number;
  /** `network: allowlist`: every connection through the proxy, with its decision and bytes; otherwise null. */
  readonly network: NetworkReport | null;
  /** Why a measurement is null, what was weaker than asked, what went wrong on the way. */
  readonly notes: readonly string[];
  /** The toolchains the run was shown (on its PATH), resolved, with their versions; absent when none. */
  readonly toolchains?: readonly ToolchainUse[];
}

const emptyStream: StreamSummary = { preview: '', bytes: 0, omitted_bytes: 0, lines: 0, omitted_lines: 0, artifact: null };

/**
 * Runs commands under bubblewrap (or, when explicitly allowed, plain process isolation).
 * One instance per runtime: it detects the host once (bubblewrap, cgroups, stray fds).
 */
export class Sandbox {
  readonly #o: SandboxOptions;
  #host: Host | null = null;
  readonly #classify: (relPath: string) => PathClass;
  /** The workspace scan's results of unchanged directories, reused from run to run. */
  readonly #scanCache: ScanCache;
  /** The wrapper started for the next run, and whether one is being started. */
  #spare: SpareWrapper | null = null;
  #refill = false;
  #closed = false;

  constructor(o: SandboxOptions) {
    this.#o = o;
    this.#scanCache = new ScanCache({ watch: o.watchWorkspace ?? false });
    this.#classify = o.classify ?? ((c) => (rel: string) => c.classify(rel))(new PathClassifier());
    checkToolchainConfig(o.toolchains ?? {}, o.homes ?? defaultHomes());
    // A runtime killed mid-run leaves its placeholders; the next one on this workspace clears them.
    sweepAbandonedPlaceholders(HOST_CODE_ENTRIES.map((rel) => join(o.workspace, rel)));
  }

  /** The options this sandbox was made with (shell.session builds its long-lived profile from them). */
  get options(): SandboxOptions {
    return this.#o;
  }

  get host(): Host {
    if (!this.#host) {
      this.#host = detectHost(this.#o.bwrapPath);
    }
    return this.#host;
  }

  /** The isolation a run would get; throws `isolation_unavailable` when it would be refused. */
  level(): IsolationLevel {
    const h = this.host;
    if (!h.shell) throw new ToolgateError('isolation_unavailable', 'no /bin/sh to start the sandbox with', { isolation: 'none' });
    if (h.bwrap) return 'bwrap';
    if (this.#o.allowProcessIsolation) return 'process';
    throw new ToolgateError(
      'isolation_unavailable',
      `shell.exec cannot run commands: bubblewrap (bwrap), its sandbox, is not installed on this host and process isolation is not allowed; ${installHint('bwrap')}`,
      { isolation: 'none', missing: 'bwrap', package: SYSTEM_PACKAGES.bwrap.debian },
    );
  }

  async run(req: RunRequest): Promise<RunResult> {
    const level = this.level();
    const h = this.host;
    const shell = h.shell as WrapperShell;
    const asked = withDefaults(req.limits);
    const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const owner = statSync(this.#o.workspace);
    const user = (this.#o.runAs ?? 'workspace-owner') === 'workspace-owner' && self.uid === 0 && owner.uid !== 0 ? { uid: owner.uid, gid: owner.gid } : self;
    const { limits, inForce } = this.limitsInForce(asked, user.uid === 0);
    const network = req.network ?? 'none';
    const writable = req.workspaceWritable ?? true;
    const isolation: IsolationReport = {
      level,
      network: level === 'bwrap' ? network : 'host',
      workspace: level === 'bwrap' && !writable ? 'read-only' : 'read-write',
      capabilities: level === 'bwrap' || user.uid !== 0 ? 'none' : 'inherited',
      uid: user.uid,
    };
    const notes: string[] = [];
    const base = { cpu_ms: null, peak_rss_bytes: null, isolation, limits: inForce, killed_after_exit: 0, network: null };
    if (network === 'allowlist' && level !== 'bwrap') {
      throw new ToolgateError('unsupported', 'network allowlist needs bubblewrap: without its network namespace nothing stops a connection that bypasses the proxy', { argument: 'network' });
    }
    if (!existsSync(req.cwd) || !statSync(req.cwd).isDirectory()) {
      return { ...base, exit_code: null, signal: null, reason: 'spawn_failed', duration_ms: 0, stdout: emptyStream, stderr: emptyStream, notes: [`cwd ${req.cwd} is not a directory`] };
    }
    const homes = this.#o.homes ?? defaultHomes();
    // Without bubblewrap nothing is hidden, so nothing needs showing again.
    const toolchains = level === 'bwrap' && !req.internal ? resolveToolchains(this.#o.toolchains ?? {}, homes) : [];
    let profile: SandboxProfile = {
      workspace: this.#o.workspace,
      workspaceWritable: writable,
      cwd: req.cwd,
      network,
      homes,
      hide: this.#o.hide ?? [],
      user,
      workspaceMounts: NO_WORKSPACE_MOUNTS,
      toolchains,
      ...(this.#o.cacheDir !== undefined && level === 'bwrap' && !req.internal && cacheBindable(user) ? { cacheDir: this.#o.cacheDir } : {}),
    };
    const cacheDir = this.#o.cacheDir !== undefined && !req.internal ? this.#o.cacheDir : undefined;
    if (cacheDir !== undefined && cacheBindable(user)) preparePackageCache(cacheDir, user);
    // Only what this run's user is shown goes on PATH (a uid other than root cannot walk into /root).
    const env = {
      ...(req.toolchainEnv ? withToolchainEnv(req.env, toolchainsOf(profile)) : req.env),
      // Scoped caches win over passed values: a host cache path would be hidden, or shared.
      ...(cacheDir === undefined ? {} : packageCacheEnv(level === 'bwrap' ? SANDBOX_CACHE_DIR : cacheDir)),
      ...(network === 'allowlist' ? proxyEnv() : {}),
    };
    const visible = level === 'bwrap' ? visibilityOf(profile) : undefined;
    const bridgeNode = network === 'allowlist' ? nodeInSandbox(req.cwd, visible) : null;
    const [first, ...args] = req.argv;
    if (first === undefined) throw new ToolgateError('invalid_arguments', 'argv is empty', { faults: [{ pointer: '/argv', message: 'empty' }] });
    const executable = resolveCommand(first, req.cwd, env['PATH'], visible);
    const shown = req.toolchainEnv ? toolchainsOf(profile) : [];
    const uses = shown.length > 0 ? { toolchains: toolchainUses(shown, executable) } : {};
    if (executable === null) {
      return { ...base, exit_code: null, signal: null, reason: 'spawn_failed', duration_ms: 0, stdout: emptyStream, stderr: emptyStream, notes: [`${first}: no such executable in the sandbox's PATH`] };
    }
    let argv: string[] = [first, ...args];
    if (req.pty) {
      const script = resolveCommand('script', req.cwd, PTY_PATH, visible);
      if (script === null) throw new ToolgateError('unsupported', 'a pseudo-terminal needs util-linux `script`, which this host lacks', { argument: 'pty' });
      // script runs the line with $SHELL or /bin/sh -c, on a new terminal; -e keeps the exit status.
      argv = [script, '-qefc', argv.map(shellQuote).join(' '), '/dev/null'];
      notes.push('pty: stdout and stderr are one terminal stream, in stdout, with CRLF line ends');
    }
    const [cmd, ...rest] = argv as [string, ...string[]];
    if (network === 'allowlist' && !req.proxy) throw new ToolgateError('internal_error', 'network allowlist needs the grant and resolver its proxy authorizes with');

    let lease: PlaceholderLease | null = null;
    if (level === 'bwrap' && !(req.internal && !writable)) {
      if (writable) lease = holdAbsentPaths(HOST_CODE_ENTRIES.map((rel) => join(this.#o.workspace, rel)));
      try {
        profile = { ...profile, workspaceMounts: await this.workspaceMountsPaced(user, lease?.paths ?? []) };
      } catch (e) {
        lease?.release();
        throw e;
      }
    } else if (level === 'process') {
      notes.push('secret files in the workspace are not hidden and .git is writable without bubblewrap');
    }

    const spareKey: SpareKey = { uid: user.uid, gid: user.gid, measure: this.#o.measure ?? true };
    // The wrapper shell passes on only names that are identifiers (it drops `A B`); the spare
    // passes the environment through bubblewrap's --setenv, so it takes only those, to match.
    const spareable =
      level === 'bwrap' &&
      network !== 'allowlist' &&
      (this.#o.spare ?? false) &&
      Object.entries(env).every(([k, v]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && !v.includes('\0')) &&
      argv.reduce((n, a) => n + Buffer.byteLength(a) + 3, 0) <= SPARE_SCRIPT_MAX - 1024;
    const spare = spareable ? this.#takeSpare(spareKey, limits.processes) : null;
    let cgroups: SandboxCgroups | null;
    try {
      cgroups = spare
        ? spare.cgroups
        : h.cgroups.bases.pids || h.cgroups.bases.cpuacct || h.cgroups.bases.memory ? SandboxCgroups.create(h.cgroups, limits.processes + (level === 'bwrap' ? 1 : 0), this.#o.measure ?? true, user.uid === self.uid ? null : user) : null;
    } catch (e) {
      lease?.release();
      throw e;
    }
    const limitsInForce: LimitsInForce =
      cgroups?.capsPids || !h.cgroups.bases.pids
        ? inForce
        : { ...inForce, processes: { value: limits.processes, enforced_by: user.uid === 0 ? 'none' : 'rlimit', note: 'the pids cgroup could not be created for this run' } };
    let proxy: NetProxy | null = null;
    let block: BlockPipe | null = null;
    try {
      if (network === 'allowlist' && req.proxy) {
        proxy = await NetProxy.start({ ...req.proxy, ...(req.signal ? { signal: req.signal } : {}), owner: user.uid === self.uid && user.gid === self.gid ? null : user });
      }
      // With a pids cgroup, RLIMIT_NPROC would only add its flaw: it counts the uid's other processes.
      // A fresh wrapper's block fd is a pipe it reopens read-write: a dead runtime's is no go (block-fd.ts).
      block = spare ? spare.block : level === 'bwrap' ? BlockPipe.create() : null;
      const script = wrapperScript(shell, limits, h.strayFds, { keepShlvl: 'SHLVL' in env, nproc: !cgroups?.capsPids, lastOwnFd: level === 'bwrap' ? 4 : 2, reopenBlockFd: block ? 4 : null });
      // Under bubblewrap the init joins while bubblewrap mounts (see SandboxCgroups.join; joining
      // the wrapper before bubblewrap starts instead measured slower under load: the migration's
      // RCU grace period then precedes the mounts); without it the wrapper joins before it execs
      // the command.
      const procs = level === 'process' ? (cgroups?.procsFiles ?? []) : [];
      const tail =
        level === 'bwrap'
          ? [
              h.bwrap as string,
              ...bwrapArgs(proxy ? { ...profile, proxySocket: proxy.socketPath } : profile, 3, 4),
              // bash's `exec` re-exports SHLVL even after `unset`; only named variables may pass.
              ...('SHLVL' in env ? [] : ['--unsetenv', 'SHLVL']),
              ...(bridgeNode ? bridgeUnsetenv(env) : []),
              '--',
              ...(bridgeNode ? bridgeArgv(bridgeNode, env, [cmd, ...rest]) : [cmd, ...rest]),
            ]
          : [cmd, ...rest];
      const out = await supervise({
        file: shell.path,
        args: [...shell.args, '-c', script, 'toolgate-sandbox', String(procs.length), ...procs, ...tail],
        cwd: level === 'bwrap' ? '/' : req.cwd,
        user: user.uid === self.uid && user.gid === self.gid ? null : user,
        env,
        stdin: req.stdin ?? null,
        mode: level,
        timeoutMs: req.timeoutMs,
        idleTimeoutMs: req.idleTimeoutMs ?? null,
        graceMs: this.#o.graceMs ?? 1000,
        outputCapBytes: limits.output_bytes,
        previewHeadBytes: this.#o.previewHeadBytes ?? 8192,
        previewTailBytes: this.#o.previewTailBytes ?? 8192,
        secrets: req.secrets ?? [],
        cgroups,
        signal: req.signal,
        openArtifact: req.openArtifact ?? null,
        onChunk: req.onChunk,
        onSpawn: req.onSpawn,
        joinInit: level === 'bwrap' && cgroups && !spare ? (pid) => cgroups.join(pid) : null,
        block,
        ...(spare
          ? {
              spare: {
                exited: spare.exited,
                blockFd: SPARE_BLOCK_FD,
                start: () => {
                  return spare.go({ shell, limits, nproc: !cgroups?.capsPids, strayFds: h.strayFds, bwrap: h.bwrap as string, options: bwrapArgs(profile, SPARE_INFO_FD, SPARE_BLOCK_FD), env, command: [cmd, ...rest], stdin: req.stdin ?? null });
                },
              },
            }
          : {}),
      });
      const cpu = cgroups?.cpuMs() ?? null;
      const peak = cgroups?.peakMemory() ?? null;
      const refused = cgroups?.pidsRefused() ?? null;
      if (cgroups && !cgroups.remove()) notes.push('a sandbox cgroup could not be removed (a process may remain in it)');
      const off = this.#o.measure === false ? 'measurement is off for this sandbox' : null;
      if (cpu === null) notes.push(`cpu_ms: ${off ?? 'no cpuacct cgroup to measure the sandbox in'}`);
      if (peak === null) notes.push(`peak_rss_bytes: ${off ?? 'no memory cgroup to measure the sandbox in'}`);
      else notes.push('peak_rss_bytes: peak memory charged to the sandbox cgroup, page cache included');
      if (refused) notes.push(`process limit refused ${refused} fork(s)`);
      // Every proxied socket ends with the command: nothing it opened outlives the call.
      await proxy?.close();
      return { ...out, cpu_ms: cpu, peak_rss_bytes: peak, isolation, limits: limitsInForce, network: proxy?.report() ?? null, notes: [...notes, ...out.notes], ...uses };
    } finally {
      // A spare taken but never started (a refused markSent, a cancel first) still waits in them.
      if (spare && !spare.used) spare.dispose();
      block?.close();
      cgroups?.remove(); // idempotent; on the error path the groups must not stay behind
      lease?.release();
      await proxy?.close();
      // The next run's spare: spawning it blocks the event loop (Node forks itself), so it goes
      // after this run, where it overlaps the receipt's fsync (measured against starting it while
      // bubblewrap sets this run up, where it competes for the CPU: docs/shell.md).
      if (spareable) this.#startSpare(shell, spareKey, self);
    }
  }

  /** The wrapper waiting for the next run (its host pid, and whether it is in its groups yet), or null. */
  get spare(): { readonly pid: number; readonly ready: boolean } | null {
    const s = this.#spare;
    if (!s || s.child.pid === undefined) return null;
    return { pid: s.child.pid, ready: s.fits(s.key) === 'yes' };
  }

  /** The spare if it fits this run (its pids cap then set for it); an unfit one is ended. */
  #takeSpare(key: SpareKey, processes: number): SpareWrapper | null {
    const s = this.#spare;
    if (!s) return null;
    const fit = s.fits(key);
    if (fit === 'later') return null; // still joining: this run starts its own
    this.#spare = null;
    if (fit === 'yes' && s.capFor(processes)) return s;
    s.dispose();
    return null;
  }

  /** Starts the next run's spare once this turn of the event loop is over (off the call's path). */
  #startSpare(shell: WrapperShell, key: SpareKey, self: { uid: number; gid: number }): void {
    if (this.#spare || this.#refill || !this.host.cgroups.bases.pids) return;
    this.#refill = true;
    setImmediate(() => {
      if (this.#spare || this.#closed) {
        this.#refill = false;
        return;
      }
      void SpareWrapper.start(shell, this.host.cgroups, key, self).then((s) => {
        this.#refill = false;
        if (s && (this.#spare || this.#closed)) s.dispose(); // closed while it started
        else if (s) this.#spare = s;
      });
    });
  }

  /** Ends the spare wrapper and the workspace watch; later runs start their own spare again only if `close` is not final, and lstat the workspace's directories. */
  close(): void {
    this.#closed = true;
    this.#spare?.dispose();
    this.#spare = null;
    this.#scanCache.close();
  }

  /** The scan's mounts, with the placeholders of absent host-code entries masked like secrets (a sandbox of its own: a gateway's launch). */
  workspaceMounts(user: { uid: number; gid: number }, placeholders: readonly string[]): WorkspaceMounts {
    return withPlaceholders(scanWorkspace(this.#o.workspace, this.#scanOptions(user)), placeholders);
  }

  /** The same, scanned a slice at a time so that other calls run meanwhile (shell.exec, shell.session). */
  async workspaceMountsPaced(user: { uid: number; gid: number }, placeholders: readonly string[]): Promise<WorkspaceMounts> {
    return withPlaceholders(await scanWorkspacePaced(this.#o.workspace, this.#scanOptions(user)), placeholders);
  }

  #scanOptions(user: { uid: number; gid: number }): ScanOptions {
    return { classify: this.#classify, user, cache: this.#scanCache, ...(this.#o.scanLimits ? { limits: this.#o.scanLimits } : {}) };
  }

  /** The limits a run gets on this host, and who enforces each (shell.session starts with it). */
  limitsInForce(asked: ResourceLimits, root: boolean): { limits: ResourceLimits; inForce: LimitsInForce } {
    const h = this.host;
    const clamp = (v: number, hard: number | undefined): number => (hard === undefined ? v : Math.min(v, hard));
    const limits: ResourceLimits = {
      cpu_seconds: clamp(asked.cpu_seconds, h.hard.cpu),
      address_space_bytes: clamp(asked.address_space_bytes, h.hard.as),
      processes: asked.processes,
      file_size_bytes: clamp(fileSizeBlocks(asked.file_size_bytes) * FSIZE_BLOCK, h.hard.fsize),
      open_files: clamp(asked.open_files, h.hard.nofile),
      output_bytes: asked.output_bytes,
    };
    const rl = (value: number): LimitInForce => ({ value, enforced_by: 'rlimit' });
    const processes: LimitInForce = h.cgroups.bases.pids
      ? { value: limits.processes, enforced_by: 'cgroup' }
      : root
        ? { value: limits.processes, enforced_by: 'none', note: `RLIMIT_NPROC does not bind uid 0 and ${h.cgroups.missing ?? 'no pids cgroup'}` }
        : { value: limits.processes, enforced_by: 'rlimit', note: 'RLIMIT_NPROC counts every process of the uid' };
    return {
      limits,
      inForce: {
        cpu_seconds: rl(limits.cpu_seconds),
        address_space_bytes: rl(limits.address_space_bytes),
        processes,
        file_size_bytes: rl(limits.file_size_bytes),
        open_files: rl(limits.open_files),
        output_bytes: { value: limits.output_bytes, enforced_by: 'supervisor' },
      },
    };
  }
}

/**
 * The node that runs the network bridge inside the sandbox: the runtime's own when the sandbox
 * shows it (it may live in a hidden home), else the system's.
 */
function nodeInSandbox(cwd: string, visible: ((p: string) => boolean) | undefined): string {
  for (const candidate of [process.execPath, '/usr/bin/node', '/usr/local/bin/node']) {
    const found = resolveCommand(candidate, cwd, undefined, visible);
    if (found !== null) return found;
  }
  throw new ToolgateError('unsupported', 'network allowlist runs a small bridge with node inside the sandbox, and no node is visible there', { argument: 'network' });
}

/** Placeholders of absent host-code entries, masked like secrets: masked rather than bound onto
 * themselves (an empty `.git` file would be a broken gitfile to git inside, a device is skipped). */
function withPlaceholders(m: WorkspaceMounts, placeholders: readonly string[]): WorkspaceMounts {
  if (!placeholders.length) return m;
  return { ...m, readOnly: m.readOnly.filter((p) => !placeholders.includes(p)), maskFiles: [...m.maskFiles, ...placeholders] };
}
