// Grep → fs.search (regex mode: ripgrep's syntax, ripgrep underneath). output_mode maps onto
// fs.search's outputs; -A/-B/-C/context onto its symmetric context (the widest, then each side
// cut back to what was asked); head_limit/offset page the rendered lines as the original does.
// `multiline` is fs.search's (ripgrep -U --multiline-dotall). What cannot map is refused with
// `unsupported`, never searched differently: `-o`, and `glob` together with `type` (fs.search's
// include globs are alternatives, not both).
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { RG_TYPES } from './grep-types.js';
import { absolutePath } from '../paths.js';
import { GREP_SCHEMA } from './schemas.js';
import { scopeOf } from './search-scope.js';
import { failed, ok, resultOf, toolgateFailure } from './text.js';

export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** fs.search's own bounds: at most this many matches, and 10 context lines. */
const MAX_RESULTS = 10_000;
const MAX_CONTEXT = 10;

interface GrepArgs {
  readonly pattern: string;
  readonly path?: string;
  readonly glob?: string;
  readonly output_mode?: 'content' | 'files_with_matches' | 'count';
  readonly '-B'?: number;
  readonly '-A'?: number;
  readonly '-C'?: number;
  readonly context?: number;
  readonly '-n'?: boolean;
  readonly '-i'?: boolean;
  readonly '-o'?: boolean;
  readonly type?: string;
  readonly head_limit?: number;
  readonly offset?: number;
  readonly multiline?: boolean;
}

function contextOf(a: GrepArgs): { before: number; after: number } {
  const both = a.context ?? a['-C'] ?? 0;
  return { before: Math.max(0, Math.floor(a['-B'] ?? both)), after: Math.max(0, Math.floor(a['-A'] ?? both)) };
}

/** Include globs: the scope (a file, or a directory's contents) combined with the glob or type filter. */
function includeOf(a: GrepArgs, prefix: string | null): string[] | null {
  const filters = a.glob !== undefined ? [a.glob] : a.type !== undefined ? [...(RG_TYPES[a.type] ?? [])] : [];
  if (prefix === null) return filters.length > 0 ? filters : null;
  if (filters.length === 0) return [prefix, `${prefix}/**`];
  return [prefix, ...filters.map((f) => (f.includes('/') ? `${prefix}/${f}` : `${prefix}/**/${f}`))];
}

function headLimit(a: GrepArgs): number {
  const h = a.head_limit ?? GREP_DEFAULT_HEAD_LIMIT;
  return h <= 0 ? Infinity : Math.floor(h);
}

export const grepTool: ProfileTool = {
  name: 'Grep',
  description: GREP_SCHEMA['description'] as string,
  inputSchema: GREP_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as GrepArgs;
    if (a['-o'] === true) return { refuse: { code: 'unsupported', text: '-o (only the matched parts) is not supported by this Grep; use output_mode "content".' } };
    if (a.glob !== undefined && a.type !== undefined) return { refuse: { code: 'unsupported', text: 'Give glob or type, not both: this Grep cannot require both filters at once.' } };
    if (a.type !== undefined && RG_TYPES[a.type] === undefined) return { refuse: { code: 'invalid_arguments', text: `unrecognized file type: ${a.type}` } };
    const scope = scopeOf(a.path, ctx.root);
    if ('refuse' in scope) return scope;
    const mode = a.output_mode ?? 'files_with_matches';
    const { before, after } = contextOf(a);
    const include = includeOf(a, scope.prefix);
    // One more than the page, to know whether there is more (the pagination footer).
    const wanted = (a.offset ?? 0) + headLimit(a) + 1;
    return {
      call: {
        tool: 'fs.search',
        arguments: {
          mode: 'regex',
          query: a.pattern,
          output: mode === 'content' ? 'matches' : mode === 'count' ? 'count_only' : 'paths_only',
          case_sensitive: a['-i'] !== true,
          ...(a.multiline === true ? { multiline: true } : {}),
          // ripgrep searches what .gitignore does not exclude, node_modules and dist included.
          include_generated: true,
          ...(include === null ? {} : { include }),
          ...(mode === 'content' ? { context_lines: Math.min(MAX_CONTEXT, Math.max(before, after)) } : {}),
          max_results: Math.min(MAX_RESULTS, Number.isFinite(wanted) ? Math.max(1, wanted) : MAX_RESULTS),
        },
      },
    };
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as GrepArgs;
    if (r.status !== 'succeeded') return r.error?.code === 'invalid_arguments' ? failed(r.error.message) : toolgateFailure(r);
    const res = resultOf(r);
    const mode = a.output_mode ?? 'files_with_matches';
    const abs = (p: unknown): string => absolutePath(String(p), ctx.root);
    let lines: string[];
    if (mode === 'files_with_matches') lines = ((res['paths'] as unknown[] | null) ?? []).map(abs);
    else if (mode === 'count') lines = ((res['counts'] as { path: string; count: number }[] | null) ?? []).map((c) => `${abs(c.path)}:${c.count}`);
    else {
      const { before, after } = contextOf(a);
      const numbers = a['-n'] !== false;
      const row = (path: string, n: number, sep: string, text: string): string => (numbers ? `${path}${sep}${n}${sep}${text}` : `${path}${sep}${text}`);
      lines = [];
      // As ripgrep prints context: a line shown once, `--` between groups that do not touch.
      let lastPath = '';
      let lastLine = 0;
      const emit = (path: string, n: number, sep: string, text: string): void => {
        if (path === lastPath && n <= lastLine) return;
        if (lines.length > 0 && (before > 0 || after > 0) && (path !== lastPath || n > lastLine + 1)) lines.push('--');
        lines.push(row(path, n, sep, text));
        lastPath = path;
        lastLine = n;
      };
      for (const m of (res['matches'] as { path: string; line: number; text: string; context?: { before: string[]; after: string[] } }[] | null) ?? []) {
        const path = abs(m.path);
        const all = m.context?.before ?? [];
        const pre = before === 0 ? [] : all.slice(-before);
        pre.forEach((t, i) => emit(path, m.line - pre.length + i, '-', t));
        emit(path, m.line, ':', m.text);
        (m.context?.after ?? []).slice(0, after).forEach((t, i) => emit(path, m.line + 1 + i, '-', t));
      }
    }
    const offset = Math.max(0, Math.floor(a.offset ?? 0));
    const limit = headLimit(a);
    const page = lines.slice(offset, offset + limit);
    const paged = lines.length > offset + limit || offset > 0;
    const footer = paged ? `\n\n[Showing results with pagination = limit: ${Number.isFinite(limit) ? limit : 0}, offset: ${offset}]` : '';
    // Toolgate's own bound (max results, bytes or time) cut the search: say so, never a silent short list.
    const ownBound = res['truncation_reason'] !== 'max_results' || !Number.isFinite(offset + limit) || offset + limit + 1 > MAX_RESULTS;
    const cut = res['truncated'] === true && !paged && ownBound ? `\n\n(Results are truncated at Toolgate's bound (${String(res['truncation_reason'])}). Narrow the pattern, path or glob.)` : '';
    if (page.length === 0) return ok(`${mode === 'files_with_matches' ? 'No files found' : 'No matches found'}${footer}`);
    if (mode === 'files_with_matches') return ok(`Found ${page.length} file${page.length === 1 ? '' : 's'}\n${page.join('\n')}${footer}${cut}`);
    if (mode === 'count') {
      const counts = ((res['counts'] as { count: number }[] | null) ?? []).slice(offset, offset + limit);
      const total = counts.reduce((s, c) => s + c.count, 0);
      return ok(`${page.join('\n')}\n\nFound ${total} total occurrence${total === 1 ? '' : 's'} across ${page.length} file${page.length === 1 ? '' : 's'}.${footer}${cut}`);
    }
    return ok(`${page.join('\n')}${footer}${cut}`);
  },
};
