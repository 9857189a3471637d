// The errors of Claude Code's Edit (and MultiEdit, edit by edit), exact strings from
// shared/toolsurf/claude-code/Edit.json, keyed by the fs.patch refusal they stand for.
import type { Receipt } from '../../protocol/index.js';
import type { ProfileText } from '../profile.js';
import { errorData, failed, pathFailure } from './text.js';

export interface EditStrings {
  readonly old_string: string;
  readonly new_string: string;
}

export function notFoundText(old: string): string {
  return `String to replace not found in file.\nString: ${old}`;
}

export function ambiguousText(count: number, old: string): string {
  return `Found ${count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${old}`;
}

export const SAME_STRINGS = 'No changes to make: old_string and new_string are exactly the same.';

/** The failure of an fs.patch that carried `edits` (1-based in Toolgate's data), in Edit's words. */
export function editFailure(r: Receipt, edits: readonly EditStrings[], filePath: string, root: string): ProfileText {
  const d = errorData(r);
  const at = typeof d['edit'] === 'number' ? edits[d['edit'] - 1] : edits.length === 1 ? edits[0] : undefined;
  const code = r.error?.code;
  if (code === 'no_match' && at) return failed(notFoundText(at.old_string));
  // Overlapping occurrences cannot be replaced all at once either: Toolgate's message says so.
  if (code === 'ambiguous_match' && at && d['overlapping'] !== true) return failed(ambiguousText(Array.isArray(d['lines']) ? d['lines'].length : 2, at.old_string));
  if (code === 'no_change') return failed(SAME_STRINGS);
  return pathFailure(r, filePath, root);
}
