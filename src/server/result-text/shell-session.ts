// shell.session as text: how the command ended (or that it still runs, and how to go on), its
// output since the last call (the same stream previews as shell.exec), then the shell's cwd, the
// exported variables it changed, background jobs, and any restart or end of the session.
import { listLines } from './bounded.js';
import { streamLines } from './shell-exec.js';

type Data = Readonly<Record<string, unknown>>;

const MAX_ENV_VALUE = 200;

function obj(v: unknown): Data | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Data) : undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** Whether a result is shell.session's. */
export function isSessionResult(result: unknown): result is Data {
  const r = obj(result);
  return r !== undefined && typeof r['session'] === 'string' && 'running' in r && obj(r['env_changes']) !== undefined;
}

function headLine(r: Data): string {
  const session = `[session "${String(r['session'])}"]`;
  if (r['running'] === true) {
    return `${session} still running after ${String(r['duration_ms'])} ms: use action "read" to wait for more output and the exit status, "write" to send stdin text or a key such as C-c`;
  }
  const exit = r['exit_code'];
  switch (r['reason']) {
    case 'none':
      return `${session} ${String(r['action'])} done`;
    case 'exited':
      return `${session} exit code ${String(exit)} after ${String(r['duration_ms'])} ms`;
    case 'session_ended':
      return `${session} the shell exited${exit === null ? '' : ` with code ${String(exit)}`} after ${String(r['duration_ms'])} ms`;
    default:
      return `${session} the command ended (reason: ${String(r['reason'])}) after ${String(r['duration_ms'])} ms`;
  }
}

function envLines(r: Data): string[] {
  const changes = obj(r['env_changes']);
  const values = obj(r['env_values']) ?? {};
  if (changes === undefined) return [];
  const show = (k: string): string => {
    const v = String(values[k] ?? '');
    return `${k}=${v.length > MAX_ENV_VALUE ? `${v.slice(0, MAX_ENV_VALUE)}…` : v}`;
  };
  const parts: string[] = [];
  const added = strings(changes['added']);
  const changed = strings(changes['changed']);
  const removed = strings(changes['removed']);
  if (added.length) parts.push(`added ${listLines(added.map(show), 20).join(', ')}`);
  if (changed.length) parts.push(`changed ${listLines(changed.map(show), 20).join(', ')}`);
  if (removed.length) parts.push(`removed ${listLines(removed, 20).join(', ')}`);
  return parts.length ? [`env: ${parts.join('; ')}`] : [];
}

export function shellSessionLines(r: Data): string[] {
  const lines = [headLine(r)];
  if (r['reason'] !== 'none' || Number(obj(r['stdout'])?.['bytes'] ?? 0) > 0) lines.push(...streamLines('stdout', obj(r['stdout'])), ...streamLines('stderr', obj(r['stderr'])));
  const restarted = obj(r['restarted']);
  if (restarted !== undefined) lines.push(`session restarted: ${String(restarted['reason'])}; ${String(restarted['lost_processes'])} process(es) of the old session were ended`);
  if (typeof r['cwd'] === 'string') lines.push(`cwd: ${r['cwd']}${r['cwd_outside_workspace'] === true ? ' (outside the workspace)' : ''}`);
  lines.push(...envLines(r));
  const background = Number(r['background_processes'] ?? 0);
  if (background > 0) lines.push(`${background} background process(es) still running in the session`);
  const control = obj(r['control']);
  if (control !== undefined) lines.push(`${String(control['key'])} sent: ${String(control['signalled_processes'])} process(es) signalled`);
  const changed = strings(r['changed_paths']);
  if (changed.length > 0) lines.push(`changed paths: ${listLines(changed, 20).join(', ')}${r['changed_paths_truncated'] === true ? ' (list truncated)' : ''}`);
  const ended = obj(r['session_ended']);
  if (ended !== undefined) lines.push(`session ended (${String(ended['reason'])}): ${String(ended['killed_processes'])} process(es) killed; the next run opens a new session`);
  const notes = strings(r['notes']);
  if (notes.length > 0) lines.push(...listLines(notes, 10).map((n) => `note: ${n}`));
  return lines;
}
