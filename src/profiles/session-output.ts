// What a profile's shell tool reads from a shell.session receipt: the command's output (the
// stream previews: bounded head and tail with the omitted-bytes marker, the whole streams kept as
// artifacts), its exit code and why it ended, and where the shell is now.
import type { Receipt } from '../protocol/index.js';

export interface SessionOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly running: boolean;
  readonly exitCode: number | null;
  /** exited, timeout, cancelled, output_limit, session_ended, running, none. */
  readonly reason: string;
  /** Relative to the workspace ('.'), or absolute when outside it; null when unknown. */
  readonly cwd: string | null;
  readonly cwdOutside: boolean;
  readonly sessionEnded: boolean;
}

function preview(stream: unknown): string {
  return typeof stream === 'object' && stream !== null && typeof (stream as { preview?: unknown }).preview === 'string' ? (stream as { preview: string }).preview : '';
}

/** null when the receipt has no shell.session result (refused before the command, or another tool). */
export function sessionOutput(r: Receipt): SessionOutput | null {
  const res = r.result;
  if (typeof res !== 'object' || res === null || !('running' in res) || !('session_state' in res)) return null;
  const o = res as Record<string, unknown>;
  return {
    stdout: preview(o['stdout']),
    stderr: preview(o['stderr']),
    running: o['running'] === true,
    exitCode: typeof o['exit_code'] === 'number' ? o['exit_code'] : null,
    reason: String(o['reason']),
    cwd: typeof o['cwd'] === 'string' ? o['cwd'] : null,
    cwdOutside: o['cwd_outside_workspace'] === true,
    sessionEnded: o['session_state'] === 'ended',
  };
}

/** One trailing newline off, as the reference tools print a command's output. */
export function chomp(s: string): string {
  return s.endsWith('\n') ? s.slice(0, -1) : s;
}

/** stdout, then stderr, each without its final newline: what a terminal shows, in a fixed order. */
export function combined(o: SessionOutput): string {
  return [chomp(o.stdout), chomp(o.stderr)].filter((s) => s !== '').join('\n');
}
