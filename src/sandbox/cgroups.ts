import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmdirSync, write, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PID_NAMESPACE } from './process-table.js';

/** cgroup v1 controllers Toolgate uses: pids caps processes, cpuacct and memory measure. */
type Controller = 'pids' | 'cpuacct' | 'memory';
const CONTROLLERS: readonly Controller[] = ['pids', 'cpuacct', 'memory'];

/** Where each v1 controller's hierarchy is mounted, and this process's cgroup within it. */
export interface CgroupHost {
  readonly bases: Partial<Record<Controller, string>>;
  /** Why a controller is absent (reported with the limits). */
  readonly missing: string | null;
}

function ownCgroups(): Map<string, string> {
  const out = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const c of (m[1] as string).split(',')) if (c) out.set(c, m[2] as string);
  }
  return out;
}

function mountOf(c: Controller): string | null {
  for (const dir of [`/sys/fs/cgroup/${c}`, c === 'cpuacct' ? '/sys/fs/cgroup/cpu,cpuacct' : '']) {
    if (dir && existsSync(join(dir, 'cgroup.procs'))) return dir;
  }
  return null;
}

/**
 * Finds the cgroup v1 hierarchies this process may create children in (root, or a delegated
 * subtree), and removes groups left by runtimes that died (named after their pid).
 * cgroup v2 delegation is not implemented: such hosts cap processes with RLIMIT_NPROC only.
 */
export function detectCgroups(): CgroupHost {
  const own = ownCgroups();
  const bases: Partial<Record<Controller, string>> = {};
  for (const c of CONTROLLERS) {
    const mount = mountOf(c);
    const rel = own.get(c);
    if (mount === null || rel === undefined) continue;
    const base = join(mount, rel);
    const probe = join(base, `toolgate-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      mkdirSync(probe);
      rmdirSync(probe);
    } catch {
      continue;
    }
    sweepStale(base);
    bases[c] = base;
  }
  const missing = bases.pids ? null : existsSync('/sys/fs/cgroup/cgroup.controllers') ? 'cgroup v2 delegation is not implemented' : 'no writable pids cgroup';
  return { bases, missing };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long a sweep waits for the processes it killed to leave their groups, before leaving the groups to the next one. */
const SWEEP_WAIT_MS = 200;

/**
 * Removes the groups of runtimes that died (named after their pid), killing what is still in
 * them first. Only a sandbox nobody supervises is left there: a bubblewrap init that never got
 * its go (its block fd never reaches end-of-file, block-fd.ts), waiting to be killed. Its
 * runtime is gone, so its receipt is settled by reconcile; the command never ran.
 */
function sweepStale(base: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  const stale: string[] = [];
  for (const name of names) {
    const m = /^toolgate-(\d+)-(?:(\d+)-)?[0-9a-f]+$/.exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    const dir = join(base, name);
    stale.push(dir);
    // A runtime of another pid namespace is not seen by isAlive: its groups are only removed when empty.
    if (m[2] !== PID_NAMESPACE) continue;
    for (const pid of procsOf(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  const until = performance.now() + SWEEP_WAIT_MS;
  for (const dir of stale) {
    while (procsOf(dir).length > 0 && performance.now() < until) Atomics.wait(PAUSE, 0, 0, 1);
    try {
      rmdirSync(dir); // succeeds only when empty
    } catch {
      // still dying (the next sweep removes it), or already gone
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The processes in one group, by host pid; none when it cannot be read (removed). */
function procsOf(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function readNumber(path: string): number | null {
  try {
    const n = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/** One sandbox's cgroups: created before spawn, joined by the wrapper, removed when empty. */
export class SandboxCgroups {
  readonly #dirs: Partial<Record<Controller, string>>;
  /** Each group's cgroup.procs, opened at creation (close-on-exec): a join is one write(2) each. */
  #procs: number[] | null = null;
  /** Joins in flight on #procs, and whether they are to be closed when none is. */
  #writing = 0;
  #closing = false;

  private constructor(dirs: Partial<Record<Controller, string>>) {
    this.#dirs = dirs;
  }

  /** `measure: false` joins only the pids group: each extra join costs an RCU grace period. */
  static create(host: CgroupHost, maxPids: number, measure = true, owner: { uid: number; gid: number } | null = null): SandboxCgroups {
    const name = `toolgate-${process.pid}-${PID_NAMESPACE}-${randomBytes(6).toString('hex')}`;
    const dirs: Partial<Record<Controller, string>> = {};
    for (const c of measure ? CONTROLLERS : (['pids'] as const)) {
      const base = host.bases[c];
      if (base === undefined) continue;
      const dir = join(base, name);
      try {
        mkdirSync(dir);
        dirs[c] = dir;
        // cgroup v1 lets a task move itself into a group whose cgroup.procs it may write.
        if (owner) chownSync(join(dir, 'cgroup.procs'), owner.uid, owner.gid);
      } catch {
        // the controller went away: measure or cap without it
      }
    }
    const cg = new SandboxCgroups(dirs);
    if (dirs.pids) {
      try {
        writeFileSync(join(dirs.pids, 'pids.max'), String(maxPids));
      } catch {
        // A group that does not cap is worse than none: the limits would claim a cgroup.
        rmdirSync(dirs.pids);
        delete dirs.pids;
      }
    }
    try {
      cg.#procs = cg.procsFiles.map((f) => openSync(f, 'w'));
    } catch (e) {
      cg.remove();
      throw e;
    }
    return cg;
  }

  /** Sets the pids cap again (a spare wrapper's groups, made before its run's limits were known). */
  capPids(max: number): boolean {
    if (!this.#dirs.pids) return false;
    try {
      writeFileSync(join(this.#dirs.pids, 'pids.max'), String(max));
      return true;
    } catch {
      return false;
    }
  }

  get capsPids(): boolean {
    return this.#dirs.pids !== undefined;
  }

  /** `cgroup.procs` files the wrapper writes its pid to before it execs bubblewrap. */
  get procsFiles(): string[] {
    return Object.values(this.#dirs).map((d) => join(d, 'cgroup.procs'));
  }

  /**
   * Moves a running process (the sandbox's init, held by bubblewrap's block fd) into every
   * group: one write(2) per group, in parallel, on the descriptors opened at creation. A cgroup
   * v1 migration waits for an RCU grace period (0.05 ms idle, 10 ms and more under load), so it
   * stays off the event loop and overlaps bubblewrap's mount setup. (Three fs/promises
   * open/write/close round trips per group took 1.5 ms idle, 6 ms under load in bench/exec.)
   */
  join(pid: number): Promise<void> {
    const fds = this.#procs;
    if (fds === null || this.#closing) return Promise.reject(new Error('the sandbox cgroups were removed'));
    const line = String(pid);
    this.#writing++;
    const one = (fd: number): Promise<void> => new Promise((resolve, reject) => write(fd, line, (e) => (e ? reject(e) : resolve())));
    const settle = (): void => {
      if (--this.#writing === 0 && this.#closing) this.#closeProcs();
    };
    return Promise.all(fds.map(one)).then(settle, (e: unknown) => {
      settle();
      throw e;
    });
  }

  /** Closes the cgroup.procs descriptors, once no write is in flight on them (a closed fd may be reused). */
  #closeProcs(): void {
    this.#closing = true;
    if (this.#writing > 0) return;
    for (const fd of this.#procs ?? []) closeSync(fd);
    this.#procs = null;
  }

  /** Every process in the sandbox (pids, or any controller's group), by host pid. */
  members(): number[] {
    const dir = this.#dirs.pids ?? this.#dirs.cpuacct ?? this.#dirs.memory;
    return dir === undefined ? [] : procsOf(dir);
  }

  cpuMs(): number | null {
    const ns = this.#dirs.cpuacct ? readNumber(join(this.#dirs.cpuacct, 'cpuacct.usage')) : null;
    return ns === null ? null : Math.round(ns / 1e6);
  }

  /** Peak memory charged to the group (anonymous and page cache), in bytes. */
  peakMemory(): number | null {
    return this.#dirs.memory ? readNumber(join(this.#dirs.memory, 'memory.max_usage_in_bytes')) : null;
  }

  /** How often a fork failed at the pids cap. */
  pidsRefused(): number | null {
    if (!this.#dirs.pids) return null;
    try {
      const m = /max (\d+)/.exec(readFileSync(join(this.#dirs.pids, 'pids.events'), 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return null;
    }
  }

  /** Removes every group; false while any still holds a process. */
  remove(): boolean {
    this.#closeProcs();
    let ok = true;
    for (const [c, dir] of Object.entries(this.#dirs) as [Controller, string][]) {
      try {
        rmdirSync(dir);
        delete this.#dirs[c];
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') ok = false;
        else delete this.#dirs[c];
      }
    }
    return ok;
  }
}
