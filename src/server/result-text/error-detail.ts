// What a model needs to act on a refusal, per error code, from the typed error data: the closest
// candidate region of a stale edit, the options that get past a refusal, the faults of bad
// arguments. A code without a case here is fully said by its one-line message.
import type { ErrorBody } from '../../protocol/index.js';
import { listLines } from './bounded.js';

type Data = Readonly<Record<string, unknown>>;

const MAX_CANDIDATE_CHARS = 2000;
/** Tools whose `not_found` is about a file the model named: a filename search finds where it is. */
const FINDS_BY_NAME: ReadonlySet<string> = new Set(['fs.read', 'fs.patch', 'fs.delete', 'fs.rename']);
const MAX_ITEMS = 10;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A candidate region as the file shows it: `cat -n` numbered from its first line. */
function candidateLines(c: unknown, rank: number): string[] {
  if (typeof c !== 'object' || c === null) return [];
  const o = c as Data;
  const start = num(o['start_line']);
  const end = num(o['end_line']);
  const text = str(o['text']);
  if (start === undefined || end === undefined || text === undefined) return [];
  const similarity = num(o['similarity']);
  const head = `closest region ${rank} of the file: ${start === end ? `line ${start}` : `lines ${start}-${end}`}${similarity === undefined ? '' : ` (similarity ${similarity})`}:`;
  const shown = text.length > MAX_CANDIDATE_CHARS ? `${text.slice(0, MAX_CANDIDATE_CHARS)}…` : text;
  return [head, ...shown.split('\n').map((line, i) => `${String(start + i).padStart(6)}\t${line}`)];
}

function faultLines(faults: unknown): string[] {
  if (!Array.isArray(faults)) return [];
  const lines = faults.map((f) => {
    const o = (typeof f === 'object' && f !== null ? f : {}) as Data;
    return `  ${str(o['pointer']) || '/'}: ${str(o['message']) ?? 'invalid'}`;
  });
  return listLines(lines, MAX_ITEMS);
}

/** Lines after the error's one-line message; empty when the message says it all. */
export function errorDetailLines(error: ErrorBody, tool: string): string[] {
  const data: Data = error.data;
  switch (error.code) {
    case 'no_match': {
      const candidates = Array.isArray(data['candidates']) ? data['candidates'] : [];
      const stated = num(data['stated_line']);
      const lines = candidates.flatMap((c, i) => candidateLines(c, i + 1));
      return [
        ...(stated === undefined ? [] : [`the hunk said line ${stated}`]),
        ...(lines.length > 0 ? lines : ['no region of the file resembles the old text']),
        'The file is not what the edit expects: read the region again (fs_read with start_line) and retry with its current text.',
      ];
    }
    case 'ambiguous_match': {
      const at = Array.isArray(data['lines']) ? data['lines'].map(String) : [];
      return [`the old text starts at lines ${listLines(at, MAX_ITEMS).join(', ')}; include more surrounding lines to make it unique${data['overlapping'] === true ? '' : ', or set replace_all: true'}`];
    }
    case 'already_exists': {
      const sha = str(data['sha256']);
      return tool === 'fs.write'
        ? [`fs_write mode "create" (the default) never overwrites: use mode "replace" with expected_sha256 ${sha === undefined ? 'of the current file' : JSON.stringify(sha)}, or mode "create_or_replace" to write it either way.`]
        : [];
    }
    case 'not_found': {
      const missing = str(data['missing']);
      const path = str(data['path']);
      if (missing !== undefined && path !== undefined && missing !== path) {
        return [`the directory ${missing} does not exist${tool === 'fs.write' ? '; set create_parents: true to create the missing directories' : ''}`];
      }
      // The file is not where the model thought: name the call that finds it by name.
      const name = path?.split('/').filter((c) => c !== '' && c !== '.').pop();
      return name !== undefined && FINDS_BY_NAME.has(tool) ? [`to find it by name: fs_search ${JSON.stringify({ mode: 'filename', query: name })}`] : [];
    }
    case 'precondition_failed':
      return data['reason'] === 'stale_sha256'
        ? [`the file's sha256 is ${str(data['actual_sha256']) ?? 'none (it does not exist)'}, not the expected ${str(data['expected_sha256']) ?? '?'}: read it again and retry against its current content`]
        : [];
    case 'invalid_arguments':
    case 'invalid_request':
    case 'invalid_task_result':
      return faultLines(data['faults']);
    case 'unknown_tool': {
      const known = Array.isArray(data['known']) ? data['known'].map((k) => String(k).replace(/\./g, '_')) : [];
      return known.length > 0 ? [`known tools: ${listLines(known, 40).join(', ')}`] : [];
    }
    case 'stale_continuation':
      return ['the file changed since the previous page: read again without the continuation'];
    case 'stale_page_state':
      return [`the page changed since snapshot ${str(data['snapshot_id']) ?? '?'} (${str(data['reason']) ?? '?'}): take browser.snapshot again and plan on the new one`];
    case 'undo_conflict': {
      const changed = Array.isArray(data['changed']) ? data['changed'].map(String) : [];
      return changed.length > 0 ? [`changed since that receipt: ${listLines(changed, MAX_ITEMS).join(', ')}`] : [];
    }
    case 'partial_failure': {
      const failed = str(data['failed']);
      return failed === undefined ? [] : [`the part that failed: ${failed}${str(data['cause_code']) === undefined ? '' : ` (${String(data['cause_code'])})`}`];
    }
    case 'approval_required': {
      // The model cannot approve (no tool can): a person does, out of band, and the same call then runs.
      const id = str(data['approval_id']);
      return id === undefined ? [] : [`a person can approve it with \`toolgate approve ${id}\` (or in the web view); then repeat exactly this call`];
    }
    case 'invalid_resource':
      return data['kind'] === 'directory' && tool === 'fs.read' ? [`fs_read reads files; to see what the directory holds: fs_list ${JSON.stringify({ path: str(data['path']) ?? '.' })}`] : [];
    // The one-line message (with the data in structuredContent) says all of these.
    case 'unsupported_protocol_version':
    case 'tool_version_unavailable':
    case 'tool_version_retired':
    case 'path_escape':
    case 'secret_path':
    case 'policy_denied':
    case 'repeated_denial':
    case 'destination_refused':
    case 'connector_not_configured':
    case 'upstream_unavailable':
    case 'deadline_expired':
    case 'budget_exhausted':
    case 'idempotency_conflict':
    case 'effect_in_progress':
    case 'reconciliation_required':
    case 'cancelled':
    case 'timed_out':
    case 'ambiguous_effect':
    case 'execution_failed':
    case 'isolation_unavailable':
    case 'unsupported':
    case 'invalid_continuation':
    case 'limit_exceeded':
    case 'internal_error':
    case 'store_unavailable':
    case 'no_change':
    case 'deadlock':
    case 'task_bound_exceeded':
    case 'ownership_conflict':
    case 'task_state':
      return [];
    case 'overlapping_edits': {
      const lines = Array.isArray(data['lines']) ? data['lines'].map((l) => (Array.isArray(l) ? `${String(l[0])}-${String(l[1])}` : String(l))) : [];
      return [`edits ${Array.isArray(data['edits']) ? data['edits'].map(String).join(' and ') : ''} touch the same original lines${lines.length > 0 ? ` (${lines.join(' and ')})` : ''}: every edit refers to the file as read, so merge them into one edit`];
    }
  }
}
