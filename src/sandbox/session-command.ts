// One command of a shell.session: its share of the session's output (split at its sync marker,
// captured like a shell.exec stream: bounded preview, artifact, injected secrets redacted), its
// stdin FIFO, its wall-clock limit, control keys, and how it ended. A caller that yields takes
// the output so far with `cut()`; the rest goes to the next segment.
import { failpoint } from '../protocol/index.js';
import { execFile } from 'node:child_process';
import { chownSync, constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ArtifactWriter } from '../registry/index.js';
import { sendSignal } from './process-table.js';
import type { SessionEndReason } from './session.js';
import { syncMarker, type DriverReport } from './session-driver.js';
import type { MarkerSplitter } from './session-streams.js';
import { StreamCapture, type StreamName, type StreamSummary } from './stream-capture.js';
import { randomBytes } from 'node:crypto';

const run = promisify(execFile);

/** After the driver's report, how long its markers may lag on the output pipes. */
const MARKER_WAIT_MS = 2_000;

export interface CommandSpec {
  /** A bash script, run with `eval` in the session's shell. */
  readonly script: string;
  readonly timeoutMs: number;
  /** Values replaced in everything recorded. */
  readonly secrets: readonly string[];
  /** Per stream; past it the command (and so the session) is ended with reason output_limit. */
  readonly outputCapBytes: number;
  readonly previewHeadBytes?: number;
  readonly previewTailBytes?: number;
  readonly openArtifact: ((stream: StreamName) => ArtifactWriter) | null;
}

export type CommandEndReason = 'exited' | 'timeout' | 'cancelled' | 'output_limit' | 'session_ended';

export interface CommandEnd {
  /** The command's exit status; for a shell that exited, the shell's; null when it was killed. */
  readonly exit_code: number | null;
  readonly reason: CommandEndReason;
  readonly duration_ms: number;
  /** The driver's report after the command; null when the session ended under it. */
  readonly report: DriverReport | null;
  /** Why the session ended with the command, if it did. */
  readonly session_end: SessionEndReason | null;
  readonly notes: readonly string[];
}

/** What a control key does to the running command. */
export type ControlKey = 'C-c' | 'C-d' | 'C-z' | 'C-\\';
const KEY_SIGNAL: Record<Exclude<ControlKey, 'C-d'>, NodeJS.Signals> = { 'C-c': 'SIGINT', 'C-z': 'SIGTSTP', 'C-\\': 'SIGQUIT' };

export interface Segment {
  readonly stdout: StreamSummary;
  readonly stderr: StreamSummary;
}

interface CommandParts {
  readonly seq: number;
  readonly spec: CommandSpec;
  readonly fifoDir: string;
  readonly user: { readonly uid: number; readonly gid: number };
  readonly stdout: MarkerSplitter;
  readonly stderr: MarkerSplitter;
  /** Host pids of the session's processes now. */
  members(): number[];
  /** The sandbox's init and the shell: never signalled by a control key. */
  ownPids(): number[];
  /** Ends the session (the only way to stop a command the shell itself runs). */
  stop(reason: SessionEndReason): void;
  readonly before: DriverReport;
}

export class SessionCommand {
  readonly seq: number;
  readonly nonce: string;
  readonly before: DriverReport;
  readonly done: Promise<CommandEnd>;
  readonly #p: CommandParts;
  readonly #started = performance.now();
  readonly #preexisting: Set<number>;
  readonly #stdin: Socket;
  #captures: Record<StreamName, StreamCapture>;
  #markers = { stdout: false, stderr: false };
  #report: DriverReport | null = null;
  #stopReason: 'timeout' | 'cancelled' | 'output_limit' | null = null;
  #resolve: (e: CommandEnd) => void = () => {};
  #settled = false;
  #wallTimer: NodeJS.Timeout | undefined;
  #markerTimer: NodeJS.Timeout | undefined;
  readonly #notes: string[] = [];
  stdinClosed = false;

  private constructor(p: CommandParts, stdin: Socket) {
    this.#p = p;
    this.seq = p.seq;
    this.before = p.before;
    this.nonce = randomBytes(16).toString('hex');
    this.#stdin = stdin;
    this.#preexisting = new Set(p.members());
    this.#captures = this.#newCaptures();
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    const marker = syncMarker(this.nonce);
    for (const name of ['stdout', 'stderr'] as const) {
      const early = (name === 'stdout' ? p.stdout : p.stderr).begin(marker, {
        data: (chunk) => {
          failpoint('during_effect'); // the session's command runs and has written output
          if (this.#captures[name].push(chunk)) this.stop('output_limit');
        },
        ended: () => {
          this.#markers[name] = true;
          this.#maybeDone();
        },
      });
      if (early > 0) this.#notes.push(`${name}: ${early} bytes written by background jobs since the previous command come first`);
    }
    this.#wallTimer = setTimeout(() => this.stop('timeout'), p.spec.timeoutMs);
  }

  /** Makes the command's stdin FIFO and holds it open for writing (read-write: the open never blocks). */
  static async create(p: CommandParts): Promise<SessionCommand> {
    const path = join(p.fifoDir, `in.${p.seq}`);
    await run('mkfifo', ['-m', '600', path]);
    if (p.user.uid !== (process.getuid?.() ?? 0)) chownSync(path, p.user.uid, p.user.gid);
    const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
    const stdin = new Socket({ fd, readable: false, writable: true });
    stdin.on('error', () => {}); // the command closed its stdin, or the session ended
    return new SessionCommand(p, stdin);
  }

  #newCaptures(): Record<StreamName, StreamCapture> {
    const s = this.#p.spec;
    const capture = (name: StreamName): StreamCapture =>
      new StreamCapture({
        name,
        headBytes: s.previewHeadBytes ?? 8192,
        tailBytes: s.previewTailBytes ?? 8192,
        capBytes: s.outputCapBytes,
        secrets: s.secrets,
        openArtifact: s.openArtifact ? () => (s.openArtifact as (n: StreamName) => ArtifactWriter)(name) : null,
      });
    return { stdout: capture('stdout'), stderr: capture('stderr') };
  }

  get settled(): boolean {
    return this.#settled;
  }

  get durationMs(): number {
    return Math.round(performance.now() - this.#started);
  }

  /** The output since the last cut, sealed; later output starts a new segment. */
  cut(): Segment {
    const old = this.#captures;
    this.#captures = this.#newCaptures();
    return { stdout: old.stdout.finish(), stderr: old.stderr.finish() };
  }

  /** Text to the command's stdin. False when its stdin is closed already. */
  write(text: string): boolean {
    if (this.stdinClosed || this.#settled) return false;
    this.#stdin.write(text);
    return true;
  }

  /**
   * A control key: C-d closes the command's stdin (end of input); C-c, C-z and C-\ signal the
   * processes the command started (not the shell, not earlier background jobs). Returns how
   * many processes were signalled (C-d: 0).
   */
  control(key: ControlKey): number {
    if (key === 'C-d') {
      if (!this.stdinClosed) this.#stdin.end();
      this.stdinClosed = true;
      return 0;
    }
    const own = new Set(this.#p.ownPids());
    const targets = this.#p.members().filter((pid) => !own.has(pid) && !this.#preexisting.has(pid));
    for (const pid of targets) sendSignal(pid, KEY_SIGNAL[key]);
    return targets.length;
  }

  /** Ends the command by ending its session (the shell runs it: nothing less stops it for sure). */
  stop(reason: 'timeout' | 'cancelled' | 'output_limit'): void {
    if (this.#settled || this.#stopReason !== null) return;
    this.#stopReason = reason;
    this.#p.stop(reason);
  }

  /** The driver reported the command's end. */
  reported(r: DriverReport): void {
    this.#report = r;
    clearTimeout(this.#wallTimer);
    this.#maybeDone();
    if (!this.#settled) {
      this.#markerTimer = setTimeout(() => {
        this.#notes.push('output after the command ended could not be told apart from the next command (its end marker did not arrive)');
        this.#finish('exited', r.status, null);
      }, MARKER_WAIT_MS);
    }
  }

  /** The session ended while the command ran (or before its markers arrived). */
  sessionEnded(reason: SessionEndReason, shellExitCode: number | null): void {
    if (this.#settled) return;
    if (this.#report && this.#stopReason === null) return this.#finish('exited', this.#report.status, null);
    const why = this.#stopReason ?? 'session_ended';
    this.#finish(why, why === 'session_ended' && reason === 'shell_exited' ? shellExitCode : null, reason);
  }

  #maybeDone(): void {
    if (this.#report && this.#markers.stdout && this.#markers.stderr) this.#finish('exited', this.#report.status, null);
  }

  #finish(reason: CommandEndReason, exit: number | null, sessionEnd: SessionEndReason | null): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#wallTimer);
    clearTimeout(this.#markerTimer);
    this.#stdin.destroy();
    this.#resolve({ exit_code: exit, reason, duration_ms: this.durationMs, report: reason === 'exited' && sessionEnd === null ? this.#report : null, session_end: sessionEnd, notes: [...this.#notes] });
  }

  /** Drops a half-written artifact of the open segment (nobody will read it). */
  abort(): void {
    for (const c of Object.values(this.#captures)) c.abort();
  }
}
