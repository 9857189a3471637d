// shell.exec as text: how the command ended, then its stdout and stderr previews (already
// bounded by the sandbox: head and tail with the omitted middle marked), the artifact holding
// each whole stream, and what it changed. Succeeded or not, the evidence is the same.
import { listLines } from './bounded.js';

type Data = Readonly<Record<string, unknown>>;

function obj(v: unknown): Data | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Data) : undefined;
}

const count = new Intl.NumberFormat('en-US');
const plural = (n: number, one: string): string => `${count.format(n)} ${one}${n === 1 ? '' : 's'}`;

/**
 * `--- stdout (10,000 lines, 98,894 bytes; … 8,257 lines (82,510 bytes) omitted from the middle;
 * full stdout: artifact sha256:…) ---` and the preview. Line counts come from shell.exec 1.1.0; a
 * result without them (a receipt of 1.0.0) is rendered with bytes only.
 */
export function streamLines(name: string, s: Data | undefined, capBytes: number | null = null): string[] {
  if (s === undefined) return [];
  const bytes = Number(s['bytes'] ?? 0);
  const preview = typeof s['preview'] === 'string' ? s['preview'] : '';
  if (bytes === 0) return [`--- ${name}: empty ---`];
  const omitted = Number(s['omitted_bytes'] ?? 0);
  const lines = typeof s['lines'] === 'number' ? s['lines'] : null;
  const omittedLines = typeof s['omitted_lines'] === 'number' ? s['omitted_lines'] : null;
  const artifact = obj(s['artifact']);
  // Past the output cap the command wrote more than was recorded; the lines are of what was.
  const size = capBytes !== null && bytes > capBytes ? `${plural(capBytes, 'byte')} recorded of ${plural(bytes, 'byte')} written` : plural(bytes, 'byte');
  const notes = [lines === null ? size : `${plural(lines, 'line')}, ${size}`];
  if (omitted > 0) {
    notes.push(omittedLines === null ? `… ${plural(omitted, 'byte')} omitted from the middle` : `… ${plural(omittedLines, 'line')} (${plural(omitted, 'byte')}) omitted from the middle`);
  }
  if (artifact !== undefined) notes.push(`full ${name}: artifact ${String(artifact['digest'])}`);
  return [`--- ${name} (${notes.join('; ')}) ---`, preview.endsWith('\n') ? preview.slice(0, -1) : preview];
}

/** Whether a result is shell.exec's (the renderer only trusts what it can see). */
export function isShellResult(result: unknown): result is Data {
  const r = obj(result);
  return r !== undefined && 'reason' in r && 'exit_code' in r && obj(r['stdout']) !== undefined;
}

/** The per-stream output cap in force, when the result says. */
function outputCap(r: Data): number | null {
  const value = obj(obj(r['limits'])?.['output_bytes'])?.['value'];
  return typeof value === 'number' ? value : null;
}

/** What ended the command by a limit, and the argument that moves that limit. */
function limitLine(r: Data): string | null {
  switch (r['reason']) {
    case 'timeout':
      return 'the wall-clock limit ended it: if the command needs longer, set timeout_ms (default 120000, at most 3600000)';
    case 'idle_timeout':
      return 'it wrote no output for idle_timeout_ms: raise idle_timeout_ms, or have the command print progress';
    case 'output_limit': {
      const value = outputCap(r);
      return `a stream passed limits.output_bytes${value === null ? '' : ` (${count.format(value)} bytes)`}: redirect the output to a file in the workspace and read it with fs_read or fs_search, or raise limits.output_bytes`;
    }
    default:
      return null;
  }
}

export function shellExecLines(r: Data): string[] {
  const exit = r['exit_code'];
  const signal = r['signal'];
  // A command that never started has no streams to show: the notes say why (e.g. no such executable).
  if (r['reason'] === 'spawn_failed' && Number(r['duration_ms'] ?? 0) === 0) {
    const notes = Array.isArray(r['notes']) ? r['notes'].map(String) : [];
    return ['not started (reason: spawn_failed): nothing ran', ...listLines(notes, 10).map((n) => `note: ${n}`)];
  }
  const ended = exit !== null && exit !== undefined ? `exit code ${String(exit)}` : signal ? `killed by ${String(signal)}` : 'no exit code';
  const lines = [`${ended} (reason: ${String(r['reason'])}) after ${String(r['duration_ms'])} ms`];
  const limit = limitLine(r);
  if (limit !== null) lines.push(limit);
  const cap = outputCap(r);
  lines.push(...streamLines('stdout', obj(r['stdout']), cap), ...streamLines('stderr', obj(r['stderr']), cap));
  const changed = Array.isArray(r['changed_paths']) ? r['changed_paths'].map(String) : null;
  if (changed !== null && changed.length > 0) {
    lines.push(`changed paths: ${listLines(changed, 20).join(', ')}${r['changed_paths_truncated'] === true ? ' (list truncated)' : ''}`);
  }
  const killed = Number(r['killed_after_exit'] ?? 0);
  if (killed > 0) lines.push(`${killed} background process(es) still running at exit were killed`);
  const collected = Array.isArray(r['collected']) ? r['collected'].map(obj) : [];
  for (const c of collected) {
    if (c === undefined) continue;
    const a = obj(c['artifact']);
    lines.push(`collected ${String(c['path'])}: ${a !== undefined ? `artifact ${String(a['digest'])}` : `not collected (${String(c['error'])})`}`);
  }
  // The notes explain fields of the result (cgroup accounting, git); they matter to a model only
  // when the command did not simply exit.
  const notes = r['reason'] !== 'exited' && Array.isArray(r['notes']) ? r['notes'].map(String) : [];
  if (notes.length > 0) lines.push(...listLines(notes, 10).map((n) => `note: ${n}`));
  return lines;
}
