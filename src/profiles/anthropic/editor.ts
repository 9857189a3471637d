// The Anthropic editor tools (str_replace_based_edit_tool; the older str_replace_editor adds
// undo_edit) on Toolgate's fs tools: view → fs.read (a directory: fs.list), create → fs.write
// create-only, str_replace → fs.patch with one exact, unique edit, insert → fs.patch insert_line
// bound to the file as the task last viewed it, undo_edit → fs.undo of the task's last edit of
// the file. The snippet after an edit is a follow-up fs.read of the file as it now is. Texts are
// the reference implementation's (shared/toolsurf/anthropic-api/); where Toolgate's contract is
// stronger, docs/profiles.md says how, point by point.
import { join, relative } from 'node:path';
import type { Receipt } from '../../protocol/index.js';
import { workspacePath } from '../paths.js';
import type { InputSchema, JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool, Refusal, ToolCall } from '../profile.js';
import { REFERENCE_DIALECT, type EditorDialect } from './dialect.js';
import { pageOf, referenceLines } from './page.js';
import { catN, clip, errorData, failed, ok, pyList, resultOf, SNIPPET_LINES } from './text.js';

/** A view reads at most this much: 16,000 characters of 4-byte UTF-8 fit, so the clip is the reference's. */
const VIEW_MAX_BYTES = 64 * 1024;
/** Each task's undo history per file is this deep at most (the oldest edits are forgotten first). */
const HISTORY_DEPTH = 64;

interface EditorArgs {
  readonly command: 'view' | 'create' | 'str_replace' | 'insert' | 'undo_edit';
  readonly path: string;
  readonly view_range?: readonly number[];
  readonly old_str?: string;
  readonly new_str?: string;
  readonly file_text?: string;
  readonly insert_line?: number;
  readonly insert_text?: string;
}

/** What the task saw of a file last: it binds a later insert_line to that content. */
interface Seen {
  readonly sha256: string;
  readonly total: number;
  readonly referenceLines: number;
}

const seenKey = (path: string): string => `anthropic.seen:${path}`;
const historyKey = (path: string): string => `anthropic.history:${path}`;

function history(ctx: ProfileContext, path: string): string[] {
  const h = ctx.notes.get(historyKey(path));
  return Array.isArray(h) ? (h as string[]) : [];
}

function insertText(a: EditorArgs): string | undefined {
  return a.insert_text ?? a.new_str;
}

/** The lines an insert adds: the text's lines, a final newline ending the last (see docs/profiles.md). */
function insertedLines(text: string): number {
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').length;
}

function refuse(text: string, code: Refusal['code']): Mapping {
  return { refuse: { code, text } };
}

function mapView(a: EditorArgs, path: string): Mapping {
  const range = a.view_range;
  if (range === undefined) return { call: { tool: 'fs.read', arguments: { path, max_bytes: VIEW_MAX_BYTES, line_numbers: false } } };
  const [from = 1, to = -1] = range;
  const start = Math.max(1, from);
  return {
    call: {
      tool: 'fs.read',
      arguments: { path, start_line: start, ...(to === -1 || to < start ? {} : { max_lines: to - start + 1 }), max_bytes: VIEW_MAX_BYTES, line_numbers: false },
    },
  };
}

function mapInsert(a: EditorArgs, path: string, ctx: ProfileContext): Mapping {
  if (a.insert_line === undefined) return refuse('Parameter `insert_line` is required for command: insert', 'invalid_arguments');
  const text = insertText(a);
  if (text === undefined) return refuse('Parameter `new_str` is required for command: insert', 'invalid_arguments');
  const seen = ctx.notes.get(seenKey(path)) as Seen | undefined;
  if (seen === undefined) {
    return refuse(
      `Insert at a line of ${a.path} needs the file as you last saw it: view ${a.path} first, then insert (Toolgate binds a line number to the content it was read from).`,
      'precondition_failed',
    );
  }
  if (a.insert_line < 0 || a.insert_line > seen.referenceLines) {
    return refuse(`Invalid \`insert_line\` parameter: ${a.insert_line}. It should be within the range of lines of the file: ${pyList([0, seen.referenceLines])}`, 'invalid_arguments');
  }
  // After the empty "line" that follows a final newline is the end of the file.
  const anchor = Math.min(a.insert_line, seen.total);
  const lines = text === '' ? '\n' : text.endsWith('\n') ? text : `${text}\n`;
  return { call: { tool: 'fs.patch', arguments: { files: [{ path, expected_sha256: seen.sha256, edits: [{ insert_line: anchor, new: lines }] }] } } };
}

/**
 * The reference's snippet after an edit: lines [first, last] (0-based) of the new file and the
 * number its first line shows. str_replace: 4 lines around where the match began (fs.patch says
 * where), through the new text; insert: 4 lines before the insert line through 4 after the text.
 */
function snippetWindow(r: Receipt, a: EditorArgs): { first: number; last: number; number: number } {
  if (a.command === 'str_replace') {
    const files = resultOf(r)['files'] as { edits?: { start_line: number }[] }[] | undefined;
    const at = (files?.[0]?.edits?.[0]?.start_line ?? 1) - 1;
    const first = Math.max(0, at - SNIPPET_LINES);
    return { first, last: at + SNIPPET_LINES + (a.new_str ?? '').split('\n').length - 1, number: first + 1 };
  }
  const n = a.insert_line ?? 0;
  return { first: Math.max(0, n - SNIPPET_LINES), last: n + insertedLines(insertText(a) ?? '') + SNIPPET_LINES - 1, number: Math.max(1, n - SNIPPET_LINES + 1) };
}

/** The follow-up read of lines [first, last] (0-based, the reference's slice) of the file as it is now. */
function snippetRead(path: string, first: number, last: number): ToolCall {
  return { tool: 'fs.read', arguments: { path, start_line: first + 1, max_lines: last - first + 1, max_bytes: VIEW_MAX_BYTES, line_numbers: false } };
}

/** What the reference would say of a failed call, by Toolgate's code; null for Toolgate's own message. */
function pathFailure(r: Receipt, a: EditorArgs, d: EditorDialect): ProfileText | null {
  const code = r.error?.code;
  if (code === 'not_found') {
    if (a.command === 'create') return failed(`Ran into [Errno 2] No such file or directory: '${a.path}' while trying to write to ${a.path}`);
    return failed(d.pathError(a.path, `The path ${a.path} does not exist. Please provide a valid path.`));
  }
  if (code === 'invalid_resource' && errorData(r)['kind'] === 'directory') {
    if (a.command === 'view') return failed(d.pathError(a.path, 'The `view_range` parameter is not allowed when `path` points to a directory.'));
    return failed(d.pathError(a.path, `The path ${a.path} is a directory and only the \`view\` command can be used on directories`));
  }
  if (code === 'path_escape') return failed(d.pathError(a.path, `The path ${a.path} is outside the workspace; only files beneath it can be reached.`));
  return null;
}

function toolgateFailure(r: Receipt): ProfileText {
  return failed(r.error?.message ?? `${r.tool} ended ${r.status}`);
}

function renderView(r: Receipt, a: EditorArgs, followed: Receipt | undefined, root: string, d: EditorDialect): ProfileText {
  if (followed !== undefined) return renderDirectory(followed, a, root, d);
  const p = pageOf(r);
  if (r.status !== 'succeeded' || p === null) return pathFailure(r, a, d) ?? toolgateFailure(r);
  if (p.binary) return failed(d.binary(a.path, p.size), 'unsupported');
  const range = a.view_range;
  if (range !== undefined) {
    const [from = 1, asked = -1] = range;
    const n = p.referenceLines;
    const shown = pyList([from, asked]);
    const note = asked > n ? d.clampNote(n) : null;
    const to = note === null ? asked : n;
    if (from < 1 || from > n) return failed(`Invalid \`view_range\`: ${shown}. Its first element \`${from}\` should be within the range of lines of the file: ${pyList([1, n])}`, 'invalid_arguments');
    if (to > n) return failed(`Invalid \`view_range\`: ${shown}. Its second element \`${to}\` should be smaller than the number of lines in the file: \`${n}\``, 'invalid_arguments');
    if (to !== -1 && to < from) return failed(`Invalid \`view_range\`: ${shown}. Its second element \`${to}\` should be larger or equal than its first \`${from}\``, 'invalid_arguments');
    const lines = referenceLines(p, to === -1 ? Number.MAX_SAFE_INTEGER : to - 1);
    // Clipped when the byte bound ended the page before the range did.
    const cut = p.truncated && (to === -1 || p.end < Math.min(to, p.total));
    const view = catN(clip(lines.join('\n'), cut, d.truncated).split('\n'), a.path, from);
    return ok(note === null ? view : `${note}\n${view}`);
  }
  const lines = referenceLines(p, Number.MAX_SAFE_INTEGER);
  return ok(catN(clip(lines.join('\n'), p.truncated, d.truncated).split('\n'), a.path, 1));
}

/** The reference lists `find PATH -maxdepth 2 -not -path '*\/.*'`: the directory, then its entries, hidden ones left out. */
function renderDirectory(listed: Receipt, a: EditorArgs, root: string, d: EditorDialect): ProfileText {
  if (listed.status !== 'succeeded') return pathFailure(listed, a, d) ?? toolgateFailure(listed);
  const res = resultOf(listed);
  const base = workspacePath(a.path, root);
  const entries = (Array.isArray(res['entries']) ? res['entries'] : []) as { path: string }[];
  const lines = [a.path];
  let hidden = 0;
  for (const e of entries) {
    const rel = base === '.' ? e.path : relative(base, e.path);
    const parts = rel.split('/');
    if (parts.some((part) => part.startsWith('.'))) {
      if (parts.length === 1) hidden++;
      continue;
    }
    lines.push(join(a.path, rel));
  }
  const more = res['truncated'] === true ? `\n[… more entries not listed: call view on a subdirectory]` : '';
  const note = d.hiddenNote(hidden, a.path);
  return ok(`Here's the files and directories up to 2 levels deep in ${a.path}, excluding hidden items:\n${lines.join('\n')}\n${more}${note === null ? '' : `\n${note}`}`);
}

function renderEdit(r: Receipt, a: EditorArgs, followed: Receipt | undefined, dialect: EditorDialect): ProfileText {
  if (r.status !== 'succeeded') {
    const code = r.error?.code;
    const d = errorData(r);
    if (a.command === 'str_replace' && code === 'no_match') return failed(`No replacement was performed, old_str \`${a.old_str ?? ''}\` did not appear verbatim in ${a.path}.`);
    if (a.command === 'str_replace' && code === 'ambiguous_match') {
      const lines = Array.isArray(d['lines']) ? (d['lines'] as number[]) : [];
      return failed(`No replacement was performed. Multiple occurrences of old_str \`${a.old_str ?? ''}\` in lines ${pyList(lines)}. Please ensure it is unique${dialect.uniqueEnd}`);
    }
    if (a.command === 'insert' && code === 'precondition_failed') {
      return failed(`${a.path} changed since you last viewed it, so line ${a.insert_line ?? 0} may not be where you think: view it again, then insert. Nothing was written.`);
    }
    return pathFailure(r, a, dialect) ?? toolgateFailure(r);
  }
  const p = pageOf(followed);
  if (p === null) return ok(`The file ${a.path} has been edited. (The lines around the edit could not be read back: ${followed?.error?.message ?? 'no read'}.)`);
  const w = snippetWindow(r, a);
  if (a.command === 'str_replace') {
    return ok(
      `The file ${a.path} has been edited. ${catN(referenceLines(p, w.last), `a snippet of ${a.path}`, w.number)}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
    );
  }
  return ok(
    `The file ${a.path} has been edited. ${catN(referenceLines(p, w.last), 'a snippet of the edited file', w.number)}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
  );
}

export interface EditorOptions {
  readonly name: string;
  readonly schema: InputSchema;
  /** The older str_replace_editor's undo_edit. */
  readonly undo: boolean;
  /** Whose strings (default: the reference implementation's). */
  readonly dialect?: EditorDialect;
}

export function editorTool(opts: EditorOptions): ProfileTool {
  const dialect = opts.dialect ?? REFERENCE_DIALECT;
  return {
    name: opts.name,
    description: opts.schema['description'] as string,
    inputSchema: opts.schema,
    map(raw: JsonObject, ctx: ProfileContext): Mapping {
      const a = raw as unknown as EditorArgs;
      const path = workspacePath(a.path, ctx.root);
      switch (a.command) {
        case 'view':
          return mapView(a, path);
        case 'create':
          if (a.file_text === undefined) return refuse('Parameter `file_text` is required for command: create', 'invalid_arguments');
          return { call: { tool: 'fs.write', arguments: { path, content: a.file_text, mode: 'create' } } };
        case 'str_replace':
          if (a.old_str === undefined) return refuse('Parameter `old_str` is required for command: str_replace', 'invalid_arguments');
          // The reference counts '' as occurring everywhere; Toolgate has no empty match to make.
          if (a.old_str === a.new_str && dialect.sameStrings(a.new_str) !== null) return refuse(dialect.sameStrings(a.new_str) ?? '', 'no_change');
          if (a.old_str === '') return refuse(`No replacement was performed. old_str is empty, so it does not name one place in ${a.path}. Please ensure it is unique`, 'invalid_arguments');
          return { call: { tool: 'fs.patch', arguments: { files: [{ path, edits: [{ old: a.old_str, new: a.new_str ?? '' }] }] } } };
        case 'insert':
          return mapInsert(a, path, ctx);
        case 'undo_edit': {
          const last = opts.undo ? history(ctx, path).at(-1) : undefined;
          if (!opts.undo) return refuse(`Unrecognized command undo_edit. The allowed commands for the ${opts.name} tool are: view, create, str_replace, insert`, 'invalid_arguments');
          if (last === undefined) return refuse(`No edit history found for ${a.path}.`, 'not_found');
          return { call: { tool: 'fs.undo', arguments: { receipt_id: last } } };
        }
      }
    },
    followUp(r: Receipt, raw: JsonObject, ctx: ProfileContext): ToolCall | null {
      const a = raw as unknown as EditorArgs;
      const path = workspacePath(a.path, ctx.root);
      if (a.command === 'view') {
        const dir = r.status !== 'succeeded' && r.error?.code === 'invalid_resource' && errorData(r)['kind'] === 'directory';
        return dir && a.view_range === undefined ? { tool: 'fs.list', arguments: { path, depth: 2 } } : null;
      }
      if (r.status !== 'succeeded') return null;
      if (a.command === 'str_replace' || a.command === 'insert') {
        const w = snippetWindow(r, a);
        return snippetRead(path, w.first, w.last);
      }
      if (a.command === 'undo_edit') return { tool: 'fs.read', arguments: { path, max_bytes: VIEW_MAX_BYTES, line_numbers: false } };
      return null;
    },
    observe(r: Receipt, raw: JsonObject, ctx: ProfileContext, followed?: Receipt): void {
      const a = raw as unknown as EditorArgs;
      const path = workspacePath(a.path, ctx.root);
      const seen = pageOf(a.command === 'view' ? r : followed);
      if (seen !== null) ctx.notes.set(seenKey(path), { sha256: seen.sha256, total: seen.total, referenceLines: seen.referenceLines } satisfies Seen);
      if (a.command === 'create') {
        const text = a.file_text ?? '';
        const total = text === '' ? 0 : (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').length;
        const sha = resultOf(r)['sha256'];
        if (typeof sha === 'string') ctx.notes.set(seenKey(path), { sha256: sha, total, referenceLines: text === '' ? 1 : total + (text.endsWith('\n') ? 1 : 0) } satisfies Seen);
      }
      if (a.command === 'str_replace' || a.command === 'insert' || a.command === 'create') ctx.notes.set(historyKey(path), [...history(ctx, path), r.receipt_id].slice(-HISTORY_DEPTH));
      if (a.command === 'undo_edit') ctx.notes.set(historyKey(path), history(ctx, path).slice(0, -1));
    },
    render(r: Receipt, raw: JsonObject, ctx: ProfileContext, followed?: Receipt): ProfileText {
      const shown = renderCommand(r, raw, ctx, followed);
      return shown.isError ? { ...shown, text: dialect.wrap(shown.text) } : shown;
    },
  };

  function renderCommand(r: Receipt, raw: JsonObject, ctx: ProfileContext, followed?: Receipt): ProfileText {
    const a = raw as unknown as EditorArgs;
    switch (a.command) {
      case 'view':
        return renderView(r, a, followed, ctx.root, dialect);
      case 'create':
        if (r.status === 'succeeded') return ok(`File created successfully at: ${a.path}`);
        if (r.error?.code === 'already_exists') return failed(`File already exists at: ${a.path}. Cannot overwrite files using command \`create\`.`);
        return pathFailure(r, a, dialect) ?? toolgateFailure(r);
      case 'str_replace':
      case 'insert':
        return renderEdit(r, a, followed, dialect);
      case 'undo_edit': {
        if (r.status !== 'succeeded') return pathFailure(r, a, dialect) ?? toolgateFailure(r);
        const p = pageOf(followed);
        if (p === null) return ok(`Last edit to ${a.path} undone successfully. (The file is gone: the edit undone created it.)`);
        return ok(`Last edit to ${a.path} undone successfully. ${catN(clip(referenceLines(p, Number.MAX_SAFE_INTEGER).join('\n'), p.truncated, dialect.truncated).split('\n'), a.path, 1)}`);
      }
    }
  }
}
