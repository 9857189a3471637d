// A wrapper started ahead of the next run, already in that run's cgroups (issue 14).
//
// Why: a run's two largest costs over bare bubblewrap were Node's synchronous spawn of the
// wrapper (it forks the whole runtime) and the cgroup v1 migration of bubblewrap's init, which
// waits for an RCU grace period: 0.05 ms idle, 10–15 ms on a loaded host, and it could only
// start once bubblewrap had cloned the init (bench/exec, docs/shell.md). A spare wrapper is
// spawned and migrated into fresh groups between runs; bubblewrap and the init it clones are
// then born inside the groups (fork inherits them), so nothing is migrated while the call waits.
//
// The spare is a shell that sources its per-run script from fd 4 and does nothing else; the
// script sets the rlimits, closes stray fds and execs bubblewrap with its options read from fd 5
// (`--args`: the environment goes with `--clearenv`/`--setenv` there, never on a command line
// that other host users can read). Until then the spare has an empty environment, no open file
// of the workspace and no way out: if the runtime dies, fd 4 reaches EOF, the sourced script
// is empty and the shell exits 125 (`exit` below). Its groups are then empty and named after
// the dead runtime, so the next runtime's cgroup sweep removes them.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { BlockPipe } from './block-fd.js';
import { SandboxCgroups, type CgroupHost } from './cgroups.js';
import { shellQuote } from './command.js';
import { fileSizeBlocks, type ResourceLimits } from './limits.js';
import { sendSignal } from './process-table.js';
import { spawnPiped, type PipedChild } from './spawn-piped.js';
import type { WrapperShell } from './wrapper.js';

/** The spare's process: started through posix_spawn where it can be (spawn-piped.ts). */
export type SpareChild = ChildProcess | PipedChild;

/** fd 3: bubblewrap's info; 4: the spare's script; 5: bubblewrap's options; 6: its block fd. */
export const SPARE_INFO_FD = 3;
const SCRIPT_FD = 4;
const ARGS_FD = 5;
export const SPARE_BLOCK_FD = 6;
/**
 * What the spare runs while it waits. Node's stdio are socket pairs, which `. /dev/fd/4` cannot
 * open, so the script comes as a line count and its lines, read with POSIX `read` (dash and
 * bash alike; byte by byte, hence the size bound below). It ends in `exec`: `exit` runs only
 * without one, or at EOF (the runtime is gone).
 */
const SPARE_SCRIPT = [
  `IFS= read -r n <&${SCRIPT_FD} || exit 125`,
  's=',
  `while [ "$n" -gt 0 ]; do IFS= read -r l <&${SCRIPT_FD} || exit 125; s="$s$l`,
  '"; n=$((n-1)); done',
  'eval "$s"',
  'exit 125',
].join('\n');
/** A longer script (a large command line) is faster through a fresh wrapper's argv. */
export const SPARE_SCRIPT_MAX = 8192;

export interface SpareKey {
  readonly uid: number;
  readonly gid: number;
  readonly measure: boolean;
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null; error: Error | null };

/** The per-run part handed to a spare: rlimits, stdin, bubblewrap and its options, the command. */
export interface SpareRun {
  readonly shell: WrapperShell;
  readonly limits: ResourceLimits;
  /** Needs `ulimit -u`: no pids cgroup caps the run. */
  readonly nproc: boolean;
  readonly strayFds: readonly number[];
  readonly bwrap: string;
  /** bubblewrap's options (mounts, `--info-fd 3`, `--block-fd 6`), without the environment. */
  readonly options: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** After `--`. */
  readonly command: readonly string[];
  readonly stdin: Buffer | null;
}

function unrefAll(child: SpareChild, ref: boolean): void {
  if (ref) child.ref();
  else child.unref();
  for (const s of child.stdio) {
    const sock = s as Socket | null;
    if (ref) sock?.ref?.();
    else sock?.unref?.();
  }
}

export class SpareWrapper {
  readonly key: SpareKey;
  readonly cgroups: SandboxCgroups;
  readonly child: SpareChild;
  /** Its block fd (6) as a pipe (block-fd.ts); null: a socket pair, as stdio[6]. */
  readonly block: BlockPipe | null;
  readonly exited: Promise<Exit>;
  #joined = false;
  #dead = false;
  #used = false;

  private constructor(key: SpareKey, cgroups: SandboxCgroups, child: SpareChild, block: BlockPipe | null) {
    this.key = key;
    this.cgroups = cgroups;
    this.child = child;
    this.block = block;
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal, error: null }));
    });
    void this.exited.then(() => {
      this.#dead = true;
      if (!this.#used) block?.close(); // once used, the run's teardown closes it
    });
    for (const s of child.stdio) (s as Readable | Writable | null)?.on('error', () => {});
  }

  /** Spawns a spare and moves it into new groups; null when the groups or the spawn fail. */
  static async start(shell: WrapperShell, host: CgroupHost, key: SpareKey, self: { uid: number; gid: number }): Promise<SpareWrapper | null> {
    let cg: SandboxCgroups;
    try {
      // The spare alone until its run sets the run's cap (capPids).
      cg = SandboxCgroups.create(host, 1, key.measure, null);
    } catch {
      return null;
    }
    if (!cg.capsPids) {
      cg.remove();
      return null;
    }
    let child: SpareChild;
    const argv = [...shell.args, '-c', SPARE_SCRIPT, 'toolgate-sandbox'];
    const sameUser = key.uid === self.uid && key.gid === self.gid;
    let block: BlockPipe | null = null;
    try {
      block = BlockPipe.create();
      child =
        (sameUser ? await spawnPiped(shell.path, argv, { cwd: '/', env: {}, pipes: 7, ...(block ? { fds: { [SPARE_BLOCK_FD]: block.read } } : {}) }) : null) ??
        spawn(shell.path, argv, {
          cwd: '/',
          env: {},
          ...(sameUser ? {} : { uid: key.uid, gid: key.gid }),
          stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', block?.read ?? 'pipe'],
        });
    } catch {
      block?.close();
      cg.remove();
      return null;
    }
    block?.closeRead(); // the spare holds its own copy
    const spare = new SpareWrapper(key, cg, child, block);
    unrefAll(child, false);
    if (child.pid === undefined) {
      spare.dispose();
      return null;
    }
    cg.join(child.pid).then(
      () => (spare.#joined = true),
      () => spare.dispose(),
    );
    return spare;
  }

  /** `yes`: joined, alive, for this user and measurement; `later`: still joining; `no`: unusable. */
  fits(key: SpareKey): 'yes' | 'later' | 'no' {
    const alive = !this.#dead && this.child.exitCode === null && this.child.signalCode === null;
    const same = key.uid === this.key.uid && key.gid === this.key.gid && key.measure === this.key.measure;
    if (!alive || !same) return 'no';
    return this.#joined ? 'yes' : 'later';
  }

  /** Caps the pids group for a run: its processes, plus bubblewrap and its init. False: unusable. */
  capFor(processes: number): boolean {
    return this.cgroups.capPids(processes + 2);
  }

  /** Hands the run to the spare: writes the script and the options. Returns the child, now referenced again. */
  go(run: SpareRun): SpareChild {
    this.#used = true;
    const l = run.limits;
    const lines = [
      `ulimit -t ${l.cpu_seconds} || exit 125`,
      `ulimit -v ${Math.floor(l.address_space_bytes / 1024)} || exit 125`,
      `ulimit -f ${fileSizeBlocks(l.file_size_bytes)} || exit 125`,
      `ulimit -n ${l.open_files} || exit 125`,
      ...(run.nproc ? [`ulimit ${run.shell.nprocFlag} ${l.processes} || exit 125`] : []),
    ];
    const closable = run.strayFds.filter((fd) => fd > SPARE_BLOCK_FD && (fd <= 9 || run.shell.closesHighFds));
    const redirects = [...closable.map((fd) => `${fd}>&-`), `${SCRIPT_FD}<&-`, ...(run.stdin ? [] : ['0</dev/null'])];
    if (this.block) lines.push(BlockPipe.reopenLine(SPARE_BLOCK_FD));
    lines.push(`exec ${redirects.join(' ')} ${[run.bwrap, '--args', String(ARGS_FD), '--', ...run.command].map(shellQuote).join(' ')}`);
    const options = [...run.options, '--clearenv', ...Object.entries(run.env).flatMap(([k, v]) => ['--setenv', k, v])];
    if (options.some((o) => o.includes('\0'))) throw new Error('a NUL byte in an argument or the environment');
    unrefAll(this.child, true);
    const [stdin, , , , script, args] = this.child.stdio as unknown as [Writable, Readable, Readable, Readable, Writable, Writable];
    args.end(options.map((o) => `${o}\0`).join(''));
    const text = `${lines.join('\n')}\n`;
    script.end(`${text.split('\n').length - 1}\n${text}`);
    if (run.stdin) stdin.end(run.stdin);
    else stdin.destroy();
    return this.child;
  }

  /** Whether `go` handed it a run (from then on the run's teardown owns it). */
  get used(): boolean {
    return this.#used;
  }

  /** Ends an unused spare and removes its groups once it is gone. */
  dispose(): void {
    if (this.child.pid !== undefined && !this.#dead) sendSignal(this.child.pid, 'SIGKILL');
    void this.exited.then(() => {
      for (let i = 0; i < 3 && !this.cgroups.remove(); i++);
    });
  }
}
