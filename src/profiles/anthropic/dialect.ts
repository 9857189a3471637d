// Where editors built on the Anthropic schema answer differently: the reference implementation
// (anthropic-quickstarts) and OpenHands' str_replace_editor (openhands-aci), whose strings
// shared/toolsurf/REPORT.md §6 records. One editor, two dialects.
import { TRUNCATED_MESSAGE } from './text.js';

export interface EditorDialect {
  /** How an error reaches the model (OpenHands' runtime: `ERROR:` on a line of its own first). */
  wrap(message: string): string;
  /** A failure about the path itself (missing, a directory). */
  pathError(path: string, message: string): string;
  /** The end of the several-occurrences error ("Please ensure it is unique" + this). */
  readonly uniqueEnd: string;
  /** Appended to content cut at 16,000 characters. */
  readonly truncated: string;
  binary(path: string, size: number): string;
  /** A view_range past the end is shown up to the end, with this note first; null: refused as the reference does. */
  clampNote(lines: number): string | null;
  /** The line after a directory listing naming the hidden entries left out; null for none. */
  hiddenNote(count: number, path: string): string | null;
  /** old_str equal to new_str: refused with this text; null: passed on (fs.patch then says no_change). */
  sameStrings(newStr: string): string | null;
}

export const REFERENCE_DIALECT: EditorDialect = {
  wrap: (message) => message,
  pathError: (_path, message) => message,
  uniqueEnd: '',
  truncated: TRUNCATED_MESSAGE,
  binary: (path, size) => `Ran into UnicodeDecodeError: 'utf-8' codec can't decode ${path} (a binary file of ${size} bytes) while trying to read ${path}`,
  clampNote: () => null,
  hiddenNote: () => null,
  sameStrings: () => null,
};

export const OPENHANDS_DIALECT: EditorDialect = {
  wrap: (message) => `ERROR:\n${message}`,
  pathError: (path, message) => `Invalid \`path\` parameter: ${path}. ${message}`,
  uniqueEnd: '.',
  truncated:
    '<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>',
  binary: (path) => `File validation failed for ${path}: File appears to be binary and this file type cannot be read or edited by this tool.`,
  clampNote: (lines) => `NOTE: We only show up to ${lines} since there're only ${lines} lines in this file.`,
  hiddenNote: (count, path) => (count > 0 ? `${count} hidden files/directories in this directory are excluded. You can use 'ls -la ${path}' to see them.` : null),
  sameStrings: (newStr) => `Invalid \`new_str\` parameter: ${newStr}. No replacement was performed. \`new_str\` and \`old_str\` must be different.`,
};
