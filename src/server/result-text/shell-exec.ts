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
 * `--- stdout (10,000 lines, 48,894 bytes; … 8,126 lines (32,510 bytes) omitted from the middle;
 * full stdout: artifact sha256:…) ---` and the preview. Line counts come from shell.exec 1.1.0; a
 * result without them (a receipt of 1.0.0) is rendered with bytes only.
 */
function streamLines(name: string, s: Data | undefined): string[] {
  if (s === undefined) return [];
  const bytes = Number(s['bytes'] ?? 0);
  const preview = typeof s['preview'] === 'string' ? s['preview'] : '';
  if (bytes === 0) return [`--- ${name}: empty ---`];
  const omitted = Number(s['omitted_bytes'] ?? 0);
  const lines = typeof s['lines'] === 'number' ? s['lines'] : null;
  const omittedLines = typeof s['omitted_lines'] === 'number' ? s['omitted_lines'] : null;
  const artifact = obj(s['artifact']);
  const notes = [lines === null ? plural(bytes, 'byte') : `${plural(lines, 'line')}, ${plural(bytes, 'byte')}`];
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

export function shellExecLines(r: Data): string[] {
  const exit = r['exit_code'];
  const signal = r['signal'];
  const ended = exit !== null && exit !== undefined ? `exit code ${String(exit)}` : signal ? `killed by ${String(signal)}` : 'no exit code';
  const lines = [`${ended} (reason: ${String(r['reason'])}) after ${String(r['duration_ms'])} ms`];
  lines.push(...streamLines('stdout', obj(r['stdout'])), ...streamLines('stderr', obj(r['stderr'])));
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
