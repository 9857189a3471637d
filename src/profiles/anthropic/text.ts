// The Anthropic reference editor's text (anthropic-quickstarts computer_use_demo/tools/edit.py,
// facts in shared/toolsurf/anthropic-api/): `cat -n` output as f"{n:6}\t{line}" under "Here's the
// result of running `cat -n` on …:", content clipped at 16,000 characters with the reference's
// <response clipped> note, and Python's list formatting in its error strings.
import type { Receipt } from '../../protocol/index.js';
import type { ProfileText } from '../profile.js';

export const MAX_RESPONSE_CHARS = 16_000;
export const TRUNCATED_MESSAGE =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>';
/** Lines the reference shows around an edit. */
export const SNIPPET_LINES = 4;

export function ok(text: string): ProfileText {
  return { text, isError: false };
}

export function failed(text: string, code?: ProfileText['code']): ProfileText {
  return code === undefined ? { text, isError: true } : { text, isError: true, code };
}

/** Python's `str(list)` of integers: `[1, 99]`. */
export function pyList(values: readonly number[]): string {
  return `[${values.join(', ')}]`;
}

/** The reference's maybe_truncate: the content cut at 16,000 characters, the note appended. */
export function clip(content: string, force = false, message = TRUNCATED_MESSAGE): string {
  if (!force && content.length <= MAX_RESPONSE_CHARS) return content;
  return content.slice(0, MAX_RESPONSE_CHARS) + message;
}

/** The reference's _make_output (without its tab expansion: see docs/profiles.md). */
export function catN(lines: readonly string[], descriptor: string, first: number): string {
  return `Here's the result of running \`cat -n\` on ${descriptor}:\n${lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n')}\n`;
}

export function resultOf(r: Receipt | undefined): Readonly<Record<string, unknown>> {
  return r !== undefined && typeof r.result === 'object' && r.result !== null ? (r.result as Record<string, unknown>) : {};
}

export function errorData(r: Receipt): Readonly<Record<string, unknown>> {
  const d = r.error?.data;
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
}
