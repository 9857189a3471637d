// How Claude Code shows a result: errors as `<tool_use_error>…</tool_use_error>` with is_error
// (shared/toolsurf/claude-code: "error_wrapping"); the original's exact strings where known.
import type { Receipt } from '../../protocol/index.js';
import type { ProfileText } from '../profile.js';

export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

export function ok(text: string): ProfileText {
  return { text, isError: false };
}

export function failed(message: string): ProfileText {
  return { text: toolUseError(message), isError: true };
}

/** An error the original has no wording for: Toolgate's own message, in the original's wrapping. */
export function toolgateFailure(r: Receipt): ProfileText {
  const message = r.error?.message ?? `${r.tool} ended ${r.status}`;
  return failed(message);
}

export function errorData(r: Receipt): Readonly<Record<string, unknown>> {
  const d = r.error?.data;
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
}

export function resultOf(r: Receipt): Readonly<Record<string, unknown>> {
  return typeof r.result === 'object' && r.result !== null ? (r.result as Record<string, unknown>) : {};
}

export const FILE_DOES_NOT_EXIST = 'File does not exist.';

/** The failures every file tool shares: a missing file, a path outside the workspace; else Toolgate's message. */
export function pathFailure(r: Receipt, given: string, root: string): ProfileText {
  const code = r.error?.code;
  if (code === 'not_found') return failed(FILE_DOES_NOT_EXIST);
  if (code === 'path_escape') return failed(`Path ${given} is outside the workspace ${root}; only files beneath it can be reached.`);
  return toolgateFailure(r);
}
