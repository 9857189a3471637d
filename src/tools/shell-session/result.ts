// A shell.session receipt's result and status, from what the session reported.
import { isAbsolute, relative } from 'node:path';
import { errorBody, type CallStatus, type ErrorBody } from '../../protocol/index.js';
import { DEFAULT_LIMITS, envChanges, type CommandEnd, type DriverReport, type IsolationReport, type Segment, type StreamSummary } from '../../sandbox/index.js';
import type { ShellSessionArgs, ShellSessionResult } from './schema.js';

const EMPTY: StreamSummary = { preview: '', bytes: 0, omitted_bytes: 0, lines: 0, omitted_lines: 0, artifact: null };

export interface ResultParts {
  readonly name: string;
  readonly action: NonNullable<ShellSessionArgs['action']>;
  readonly open: boolean;
  readonly isolation: IsolationReport;
  readonly revision: string;
  readonly root: string;
  readonly segment?: Segment;
  readonly running?: boolean;
  readonly end?: CommandEnd;
  readonly durationMs?: number;
  /** The shell's state before the command and now (null: unknown, the session ended under it). */
  readonly before?: DriverReport | null;
  readonly after?: DriverReport | null;
  readonly background?: number;
  readonly restarted?: ShellSessionResult['restarted'];
  readonly sessionEnded?: ShellSessionResult['session_ended'];
  readonly control?: ShellSessionResult['control'];
  readonly changed?: { paths: string[]; truncated: boolean } | null;
  readonly notes?: readonly string[];
}

function cwdOf(root: string, cwd: string | undefined): { cwd: string | null; outside: boolean } {
  if (cwd === undefined || cwd === '') return { cwd: null, outside: false };
  const rel = relative(root, cwd);
  if (rel === '') return { cwd: '.', outside: false };
  if (rel.startsWith('..') || isAbsolute(rel)) return { cwd, outside: true };
  return { cwd: rel, outside: false };
}

export function sessionResult(p: ResultParts): ShellSessionResult {
  const state = p.after ?? p.before ?? null;
  const { cwd, outside } = cwdOf(p.root, state?.cwd);
  const changes = p.before && p.after ? envChanges(p.before.env, p.after.env) : { added: [], changed: [], removed: [] };
  const values: Record<string, string> = {};
  for (const k of [...changes.added, ...changes.changed]) values[k] = p.after?.env[k] ?? '';
  return {
    session: p.name,
    action: p.action,
    session_state: p.open ? 'open' : 'ended',
    running: p.running ?? false,
    exit_code: p.end?.exit_code ?? null,
    reason: p.running ? 'running' : (p.end?.reason ?? 'none'),
    duration_ms: p.end?.duration_ms ?? p.durationMs ?? 0,
    stdout: p.segment?.stdout ?? EMPTY,
    stderr: p.segment?.stderr ?? EMPTY,
    cwd,
    cwd_outside_workspace: outside,
    env_changes: { added: [...changes.added], changed: [...changes.changed], removed: [...changes.removed] },
    env_values: values,
    background_processes: p.background ?? 0,
    restarted: p.restarted ?? null,
    session_ended: p.sessionEnded ?? null,
    control: p.control ?? null,
    changed_paths: p.changed?.paths ?? null,
    changed_paths_truncated: p.changed?.truncated ?? false,
    revision: p.revision,
    isolation: { ...p.isolation },
    notes: [...(p.notes ?? []), ...(p.end?.notes ?? [])],
  };
}

/** The receipt status of a call that returned a command's end (or its yield). */
export function statusOf(r: ShellSessionResult, task: string): { status: CallStatus; error?: ErrorBody } {
  if (r.running) {
    return {
      status: 'accepted_async',
      error: errorBody('effect_in_progress', `the command is still running in session "${r.session}"; use action "read" for more output and its exit status, or "write" to send input or a key such as C-c`, {
        task_id: task,
        effect_key: `shell.session:${r.session}`,
        state: 'running',
        attempt_id: null,
      }),
    };
  }
  switch (r.reason) {
    case 'none':
      return { status: 'succeeded' };
    case 'exited':
    case 'session_ended':
      if (r.exit_code === 0) return { status: 'succeeded' };
      return {
        status: 'failed',
        error:
          r.exit_code === null
            ? errorBody('execution_failed', 'the session ended before the command did', { reason: r.reason, exit_code: null })
            : errorBody('execution_failed', `the command exited with ${r.exit_code}`, { reason: r.reason, exit_code: r.exit_code }),
      };
    case 'timeout':
      return { status: 'timed_out', error: errorBody('timed_out', 'the command ran past its timeout_ms; it and its session were ended', { reason: 'timeout', phase: 'after_send', process_left: false }) };
    case 'cancelled':
      return { status: 'cancelled', error: errorBody('cancelled', 'the command was cancelled; it and its session were ended, no process is left', { reason: 'cancelled', process_left: false }) };
    case 'output_limit':
      return { status: 'failed', error: errorBody('limit_exceeded', 'the command wrote more than its output limit; it and its session were ended', { limit: 'output_bytes', value: DEFAULT_LIMITS.output_bytes, reason: 'output_limit' }) };
    case 'running':
      return { status: 'accepted_async' };
  }
}
