// Read → fs.read: `offset` is the first line (1-based; 0 reads from the top), `limit` the number
// of lines (default 2000), shown `cat -n` style as Claude Code does today: the line number, a
// tab, the line. Lines past 2000 characters are cut (with a marker, where the original cuts
// silently), and the page is bounded in bytes too (about 20k tokens, under the original's 25k),
// saying where to continue. The original's reminders for an empty file and an offset past the end.
import { extname } from 'node:path';
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { workspacePath } from '../paths.js';
import { READ_SCHEMA } from './schemas.js';
import { failed, ok, pathFailure, resultOf } from './text.js';

export const READ_DEFAULT_LINES = 2000;
export const READ_MAX_LINE_CHARS = 2000;
/** About 20k tokens at 4 bytes a token: the page stays under the original's 25,000-token limit. */
export const READ_MAX_BYTES = 80_000;

interface ReadArgs {
  readonly file_path: string;
  readonly offset?: number;
  readonly limit?: number;
  readonly pages?: string;
}

function numbered(content: string, first: number): string {
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines
    .map((line, i) => {
      const cut = line.length > READ_MAX_LINE_CHARS ? `${line.slice(0, READ_MAX_LINE_CHARS)}… [line truncated: ${line.length - READ_MAX_LINE_CHARS} more characters]` : line;
      return `${first + i}\t${cut}`;
    })
    .join('\n');
}

export const readTool: ProfileTool = {
  name: 'Read',
  description: READ_SCHEMA['description'] as string,
  inputSchema: READ_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const args = raw as unknown as ReadArgs;
    if (args.pages !== undefined) return { refuse: { code: 'unsupported', text: 'PDF pages are not read by this tool: Toolgate reads text files only.' } };
    return {
      call: {
        tool: 'fs.read',
        arguments: {
          path: workspacePath(args.file_path, ctx.root),
          start_line: Math.max(1, args.offset ?? 1),
          max_lines: args.limit ?? READ_DEFAULT_LINES,
          max_bytes: READ_MAX_BYTES,
          line_numbers: false,
        },
      },
    };
  },
  observe(r: Receipt, _args: JsonObject, ctx: ProfileContext): void {
    const res = resultOf(r);
    if (typeof res['path'] === 'string' && typeof res['sha256'] === 'string') ctx.files.set(res['path'], res['sha256']);
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const args = raw as unknown as ReadArgs;
    if (r.status !== 'succeeded') {
      const d = r.error?.data as { kind?: unknown } | undefined;
      if (r.error?.code === 'invalid_resource' && d?.kind === 'directory') return failed('EISDIR: illegal operation on a directory, read');
      return pathFailure(r, args.file_path, ctx.root);
    }
    const res = resultOf(r);
    if (res['binary'] === true) {
      const ext = extname(args.file_path) || '(no extension)';
      return { ...failed(`This tool cannot read binary files. The file appears to be a binary ${ext} file. Please use appropriate tools for binary file analysis.`), code: 'unsupported' };
    }
    const total = Number(res['total_lines']);
    const start = Number(res['start_line']);
    const end = Number(res['end_line']);
    if (Number(res['size']) === 0) return ok('<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>');
    if (end < start) {
      return ok(`<system-reminder>Warning: the file exists but is shorter than the provided offset (${args.offset ?? start}). The file has ${total} lines.</system-reminder>`);
    }
    const body = numbered(String(res['content']), start);
    const shown = end - start + 1;
    // A page the model asked for exactly (its limit) needs no notice; one the window or the byte bound cut does.
    if (end < total && (args.limit === undefined || shown < args.limit)) {
      return ok(`${body}\n\n(Showing lines ${start}-${end} of ${total}. To read more, call Read with offset: ${end + 1}.)`);
    }
    return ok(body);
  },
};
