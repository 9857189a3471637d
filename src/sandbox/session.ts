// One long-lived bubblewrap sandbox running the session driver (session-driver.ts): the same
// profile, masks, toolchains, rlimits and cgroup as a shell.exec run, set up once; commands are
// then fed to it one at a time (session-command.ts). Ending it kills the pid namespace's init,
// which ends every process of the session, setsid or not, and waits until the cgroup is empty.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ToolgateError } from '../protocol/index.js';
import { SandboxCgroups } from './cgroups.js';
import { withDefaults, type LimitsInForce, type LimitsRequest } from './limits.js';
import { holdAbsentPaths, type PlaceholderLease } from './placeholder.js';
import { parentOf, processStat, sendSignal, sweepDeadOwners } from './process-table.js';
import { bwrapArgs, defaultHomes, toolchainsOf, type SandboxProfile } from './profile.js';
import { HOST_CODE_ENTRIES, type IsolationReport, type Sandbox } from './sandbox.js';
import { SessionCommand, type CommandSpec } from './session-command.js';
import { DRIVER_SCRIPT, DriverReportParser, SESSION_FIFO_DIR, type DriverReport } from './session-driver.js';
import { MarkerSplitter } from './session-streams.js';
import { settlesWithin, waitUntilEmpty } from './teardown.js';
import { resolveToolchains, withToolchainEnv } from './toolchains.js';
import { SANDBOX_CACHE_DIR, cacheBindable, packageCacheEnv, preparePackageCache } from './package-caches.js';
import { wrapperScript, type WrapperShell } from './wrapper.js';
import type { WorkspaceMounts } from './workspace-scan.js';

/** How long bubblewrap and the driver may take to report ready. */
const START_LIMIT_MS = 30_000;

export interface SessionOpenRequest {
  /** Absolute starting directory: the workspace or beneath it. */
  readonly cwd: string;
  /** The shell's starting environment (nothing else of the runtime's passes). */
  readonly env: Readonly<Record<string, string>>;
  readonly workspaceWritable: boolean;
  /** Put the toolchains' bin directories ahead of PATH (false when `env` carries them already). */
  readonly toolchainEnv: boolean;
  readonly limits?: LimitsRequest;
  /** Between SIGTERM and SIGKILL for a stop; the session's own teardown kills at once. */
  readonly graceMs?: number;
}

/** Why a session ended. */
export type SessionEndReason = 'closed' | 'restarted' | 'timeout' | 'cancelled' | 'output_limit' | 'idle' | 'task_ended' | 'shell_exited' | 'masks_changed';

export interface SessionEnd {
  readonly reason: SessionEndReason;
  /** Processes (background jobs, daemons) that were still running and were killed. */
  readonly killed: number;
  /** The driver's exit status when the shell exited by itself (`exit 3`). */
  readonly shell_exit_code: number | null;
}

export class SandboxSession {
  readonly isolation: IsolationReport;
  readonly limits: LimitsInForce;
  /** cwd and exported environment after the last command (or at start). */
  state: DriverReport;
  readonly #child: ChildProcess;
  readonly #cgroups: SandboxCgroups | null;
  readonly #lease: PlaceholderLease | null;
  readonly #fifoDir: string;
  readonly #user: { uid: number; gid: number };
  readonly #masks: string;
  readonly #sandbox: Sandbox;
  readonly #out: MarkerSplitter = new MarkerSplitter();
  readonly #err: MarkerSplitter = new MarkerSplitter();
  readonly #reports = new DriverReportParser();
  readonly #streamsClosed: Promise<void>;
  #init: { pid: number; start: string } | null = null;
  #shellPid: number | null = null;
  #seq = 0;
  #running: SessionCommand | null = null;
  #ended: Promise<SessionEnd> | null = null;
  #endReason: SessionEndReason | null = null;
  #exitCode: number | null = null;
  #exited = false;
  readonly #exitedPromise: Promise<void>;
  #onReady: ((r: DriverReport) => void) | null = null;

  private constructor(parts: {
    sandbox: Sandbox;
    child: ChildProcess;
    cgroups: SandboxCgroups | null;
    lease: PlaceholderLease | null;
    fifoDir: string;
    user: { uid: number; gid: number };
    masks: WorkspaceMounts;
    isolation: IsolationReport;
    limits: LimitsInForce;
  }) {
    this.#sandbox = parts.sandbox;
    this.#child = parts.child;
    this.#cgroups = parts.cgroups;
    this.#lease = parts.lease;
    this.#fifoDir = parts.fifoDir;
    this.#user = parts.user;
    this.#masks = JSON.stringify(parts.masks);
    this.isolation = parts.isolation;
    this.limits = parts.limits;
    this.state = { seq: 0, status: 0, cwd: '', env: {} };
    const child = parts.child;
    const closed = (s: Readable | null): Promise<void> => new Promise((resolve) => (s ? s.once('close', () => resolve()) : resolve()));
    this.#streamsClosed = Promise.all([closed(child.stdout), closed(child.stderr)]).then(() => {});
    child.stdout?.on('data', (c: Buffer) => this.#out.push(c));
    child.stderr?.on('data', (c: Buffer) => this.#err.push(c));
    child.stdout?.once('close', () => this.#out.close());
    child.stderr?.once('close', () => this.#err.close());
    const status = fdOf(child, 6) as Readable | null;
    status?.on('data', (c: Buffer) => {
      for (const r of this.#reports.push(c)) this.#report(r);
    });
    status?.on('error', () => {});
    (fdOf(child, 5) as Writable | null)?.on('error', () => {});
    this.#exitedPromise = new Promise((resolve) => {
      child.once('exit', (code) => {
        this.#exited = true;
        this.#exitCode = code;
        resolve();
        // The shell exited by itself (`exit`, a fatal error): the session is over.
        if (this.#endReason === null) void this.end('shell_exited');
      });
      child.once('error', () => {
        this.#exited = true;
        resolve();
        if (this.#endReason === null) void this.end('shell_exited');
      });
    });
  }

  /** Starts the sandbox and its driver; resolves once the driver reported its first state. */
  static async open(sandbox: Sandbox, req: SessionOpenRequest): Promise<SandboxSession> {
    const level = sandbox.level();
    if (level !== 'bwrap') throw new ToolgateError('isolation_unavailable', 'shell.session needs bubblewrap: process isolation cannot end a long-lived shell and everything it started', { isolation: 'none', missing: 'bwrap' });
    const h = sandbox.host;
    const o = sandbox.options;
    const shell = h.shell as WrapperShell;
    const bash = ['/bin/bash', '/usr/bin/bash'].find((p) => existsSync(p));
    if (bash === undefined) throw new ToolgateError('unsupported', 'shell.session needs bash, which this host lacks', {});
    const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const owner = statSync(o.workspace);
    const user = (o.runAs ?? 'workspace-owner') === 'workspace-owner' && self.uid === 0 && owner.uid !== 0 ? { uid: owner.uid, gid: owner.gid } : self;
    const { limits, inForce } = sandbox.limitsInForce(withDefaults(req.limits), user.uid === 0);
    const isolation: IsolationReport = { level, network: 'none', workspace: req.workspaceWritable ? 'read-write' : 'read-only', capabilities: 'none', uid: user.uid };
    const homes = o.homes ?? defaultHomes();
    let profile: SandboxProfile = {
      workspace: o.workspace,
      workspaceWritable: req.workspaceWritable,
      cwd: req.cwd,
      network: 'none',
      homes,
      hide: o.hide ?? [],
      user,
      workspaceMounts: { readOnly: [], maskFiles: [], maskDirs: [] },
      toolchains: resolveToolchains(o.toolchains ?? {}, homes),
      ...(o.cacheDir !== undefined && cacheBindable(user) ? { cacheDir: o.cacheDir } : {}),
    };
    if (o.cacheDir !== undefined && cacheBindable(user)) preparePackageCache(o.cacheDir, user);
    // The workspace's own package caches, as for shell.exec (package-caches.ts).
    const env = { ...(req.toolchainEnv ? withToolchainEnv(req.env, toolchainsOf(profile)) : req.env), ...(o.cacheDir !== undefined ? packageCacheEnv(SANDBOX_CACHE_DIR) : {}) };
    const lease = req.workspaceWritable ? holdAbsentPaths(HOST_CODE_ENTRIES.map((rel) => join(o.workspace, rel))) : null;
    let cgroups: SandboxCgroups | null = null;
    let fifoDir: string | null = null;
    let child: ChildProcess | null = null;
    try {
      const masks = await sandbox.workspaceMountsPaced(user, lease?.paths ?? []);
      profile = { ...profile, workspaceMounts: masks };
      // Per-command stdin FIFOs: a private host directory, bound read-only inside (a FIFO opens for writing on a read-only mount).
      sweepDeadOwners(tmpdir(), 'toolgate-session-');
      fifoDir = mkdtempSync(join(tmpdir(), `toolgate-session-${process.pid}-`));
      if (user.uid !== self.uid) chownSync(fifoDir, user.uid, user.gid);
      const c = h.cgroups.bases.pids || h.cgroups.bases.cpuacct || h.cgroups.bases.memory ? SandboxCgroups.create(h.cgroups, limits.processes + 1, o.measure ?? true, user.uid === self.uid ? null : user) : null;
      cgroups = c;
      const limitsInForce: LimitsInForce =
        c?.capsPids || !h.cgroups.bases.pids ? inForce : { ...inForce, processes: { value: limits.processes, enforced_by: user.uid === 0 ? 'none' : 'rlimit', note: 'the pids cgroup could not be created for this session' } };
      const script = wrapperScript(shell, limits, h.strayFds, { keepShlvl: false, nproc: !c?.capsPids, lastOwnFd: 6 });
      const tail = [h.bwrap as string, ...bwrapArgs(profile, 3, 4), '--ro-bind', fifoDir, SESSION_FIFO_DIR, '--unsetenv', 'SHLVL', '--', bash, '--norc', '--noprofile', '-c', DRIVER_SCRIPT];
      child = spawn(shell.path, [...shell.args, '-c', script, 'toolgate-session', '0', ...tail], {
        cwd: '/',
        env,
        ...(user.uid === self.uid && user.gid === self.gid ? {} : { uid: user.uid, gid: user.gid }),
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
      });
      const session = new SandboxSession({ sandbox, child, cgroups: c, lease, fifoDir, user, masks, isolation, limits: limitsInForce });
      await session.#start(c);
      return session;
    } catch (e) {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const pid of cgroups?.members() ?? []) sendSignal(pid, 'SIGKILL');
      if (cgroups) await waitUntilEmpty(null, () => cgroups?.members() ?? [], () => {}, []);
      cgroups?.remove();
      if (fifoDir) rmSync(fifoDir, { recursive: true, force: true });
      lease?.release();
      throw e;
    }
  }

  async #start(cgroups: SandboxCgroups | null): Promise<void> {
    const child = this.#child;
    let info = '';
    const ready = new Promise<DriverReport>((resolve) => (this.#onReady = resolve));
    (child.stdio[3] as Readable | null)?.on('data', (d: Buffer) => {
      info += d.toString('utf8');
      if (this.#init) return;
      try {
        const pid = (JSON.parse(info) as Record<string, unknown>)['child-pid'];
        const stat = typeof pid === 'number' ? processStat(pid) : null;
        if (typeof pid !== 'number' || !stat) return;
        this.#init = { pid, start: stat.start };
        const block = child.stdio[4] as Writable | null;
        block?.on('error', () => {});
        const go = (): void => void block?.end('x');
        if (cgroups) cgroups.join(pid).then(go, () => void this.end('closed'));
        else go();
      } catch {
        // not the whole document yet
      }
    });
    (child.stdio[3] as Readable | null)?.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      this.#exitedPromise.then(() => 'exited' as const),
      new Promise<'slow'>((r) => (timer = setTimeout(() => r('slow'), START_LIMIT_MS))),
    ]);
    clearTimeout(timer);
    if (outcome !== 'ready') {
      await this.end('closed'); // kills first: a sandbox that never got ready may still be alive
      throw new ToolgateError('execution_failed', outcome === 'slow' ? 'the session sandbox did not start in time' : 'the session sandbox could not be started', { reason: 'spawn_failed', notes: [] });
    }
  }

  #report(r: DriverReport): void {
    this.state = r;
    if (r.seq === 0) {
      // Now, before any command ran, the init's only child is the shell (orphans are reparented to the init later).
      const init = this.#init?.pid;
      this.#shellPid = init === undefined ? null : (this.members().find((p) => parentOf(p) === init) ?? null);
      this.#onReady?.(r);
      this.#onReady = null;
      return;
    }
    if (this.#running?.seq === r.seq) this.#running.reported(r);
  }

  get ended(): boolean {
    return this.#endReason !== null;
  }

  get endReason(): SessionEndReason | null {
    return this.#endReason;
  }

  get running(): SessionCommand | null {
    return this.#running;
  }

  /** Host pids of every process of the session (its cgroup), for accounting and tests. */
  members(): number[] {
    return this.#cgroups?.members() ?? [];
  }

  /** Processes besides the sandbox's init and the shell: background jobs (and a running command's). */
  backgroundCount(): number {
    const own = new Set(this.#ownPids());
    return this.members().filter((p) => !own.has(p)).length;
  }

  /** Whether the workspace's secret and protected entries differ from the ones masked at start. */
  async masksChanged(): Promise<boolean> {
    return JSON.stringify(await this.#sandbox.workspaceMountsPaced(this.#user, this.#lease?.paths ?? [])) !== this.#masks;
  }

  /** Starts one command; throws when the session ended or one is running. */
  async start(spec: CommandSpec): Promise<SessionCommand> {
    if (this.ended) throw new ToolgateError('execution_failed', 'the session has ended', { reason: 'session_ended', exit_code: null });
    if (this.#running) throw new ToolgateError('effect_in_progress', 'a command is still running in this session', { key: 'session', state: 'running', attempt_id: null });
    const seq = ++this.#seq;
    const cmd = await SessionCommand.create({
      seq,
      spec,
      fifoDir: this.#fifoDir,
      user: this.#user,
      stdout: this.#out,
      stderr: this.#err,
      members: () => this.members(),
      ownPids: () => this.#ownPids(),
      stop: (reason) => void this.end(reason),
      before: this.state,
    });
    this.#running = cmd;
    void cmd.done.finally(() => {
      if (this.#running === cmd) this.#running = null;
    });
    const pipe = fdOf(this.#child, 5) as Writable | null;
    pipe?.write(Buffer.concat([Buffer.from(`${seq}\0${cmd.nonce}\0`), Buffer.from(spec.script, 'utf8'), Buffer.from('\0')]));
    return cmd;
  }

  /** The init and the driver: what a control key must not reach. */
  #ownPids(): number[] {
    return [this.#init?.pid, this.#shellPid].filter((p): p is number => p !== undefined && p !== null);
  }

  /**
   * Ends the session: kills the pid namespace (every process, setsid or not), waits until the
   * cgroup is empty, removes the FIFOs, the cgroup and the placeholders. Idempotent: every
   * caller gets the first reason's answer.
   */
  end(reason: SessionEndReason): Promise<SessionEnd> {
    this.#ended ??= this.#teardown(reason);
    return this.#ended;
  }

  async #teardown(reason: SessionEndReason): Promise<SessionEnd> {
    this.#endReason = reason;
    const own = new Set(this.#ownPids());
    const killed = this.members().filter((p) => !own.has(p)).length;
    const killHard = (): void => {
      if (this.#init) sendSignal(this.#init.pid, 'SIGKILL');
      if (this.#child.pid !== undefined && !this.#exited) sendSignal(this.#child.pid, 'SIGKILL');
      for (const pid of this.members()) sendSignal(pid, 'SIGKILL');
    };
    if (reason !== 'shell_exited') killHard();
    const notes: string[] = [];
    await this.#exitedPromise;
    killHard(); // the shell's exit leaves background jobs to the namespace's init: they go now
    await waitUntilEmpty(this.#init, () => this.members(), killHard, notes);
    if (!(await settlesWithin(this.#streamsClosed, 2_000))) {
      this.#child.stdout?.destroy();
      this.#child.stderr?.destroy();
    }
    for (const fd of [3, 4, 5, 6]) fdOf(this.#child, fd)?.destroy();
    this.#running?.sessionEnded(reason, this.#exitCode);
    this.#cgroups?.remove();
    rmSync(this.#fifoDir, { recursive: true, force: true });
    this.#lease?.release();
    return { reason, killed, shell_exit_code: reason === 'shell_exited' ? this.#exitCode : null };
  }
}

/** The pipe on one of the child's extra fds (the stdio tuple type knows only five). */
function fdOf(child: ChildProcess, fd: number): Readable | Writable | null {
  return (child.stdio as readonly (Readable | Writable | null | undefined)[])[fd] ?? null;
}

