import { closeSync } from 'node:fs';
import { z } from 'zod';
import { ToolgateError } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import { forEachChunk, isToolgateTempName, readAt, readAtAsync, refuseSecretLink, SYNC_READ_MAX, type ResolvedPath } from '../../resources/index.js';
import { FileInfoCache, lastCharBoundary } from './file-info.js';
import { pageWindow } from './redaction-window.js';

/**
 * The window a read without `max_lines`/`max_bytes` gets, sized for a model's context: 2,000
 * lines or about 20k tokens, estimated as bytes / 4 (FS_READ_BYTES_PER_TOKEN), so that the page
 * shown with line numbers stays under the 25k-token output limit agent harnesses apply.
 * An explicit bound replaces this window (docs/mcp.md, "fs.read").
 */
export const FS_READ_DEFAULT_MAX_LINES = 2000;
export const FS_READ_BYTES_PER_TOKEN = 4;
export const FS_READ_DEFAULT_MAX_TOKENS = 20_000;
export const FS_READ_DEFAULT_MAX_BYTES = FS_READ_DEFAULT_MAX_TOKENS * FS_READ_BYTES_PER_TOKEN;
/** The byte bound of a page that gives `max_lines` alone (as before the default window). */
export const FS_READ_LINES_PAGE_MAX_BYTES = 256 * 1024;
/** Hard cap on one page: far below the 10 MiB that closes an MCP stdio connection. */
export const FS_READ_MAX_BYTES = 4 * 1024 * 1024;
/**
 * The largest file fs.read pages. Every page reports the whole file's sha256 and line count, one
 * scan of the file (cached by its identity); past this size the scan alone outlasts a client's
 * patience (a 1 TiB sparse file took minutes of reading zeros), so the read is refused at once.
 */
export const FS_READ_MAX_FILE_BYTES = 4 * 1024 * 1024 * 1024;
const WHOLE_FILE_FAST_PATH = 1024 * 1024;

export const fsReadArgs = z.strictObject({
  path: z.string().min(1).describe('Path beneath the workspace root'),
  start_line: z.number().int().min(1).optional().describe('First line to return, 1-based'),
  max_lines: z.number().int().min(1).optional(),
  max_bytes: z.number().int().min(1).max(FS_READ_MAX_BYTES).optional(),
  continuation: z.string().min(1).max(4096).optional().describe('Token from a previous truncated page'),
  line_numbers: z
    .boolean()
    .optional()
    .describe('Show the page to the model `cat -n` style (number, tab, line) in the text content; default true. The structured content is always the raw text'),
});
export type FsReadArgs = z.infer<typeof fsReadArgs>;

export const fsReadResult = z.strictObject({
  path: z.string(),
  content: z.string().nullable(),
  binary: z.boolean(),
  sha256: z.string(),
  size: z.number().int(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  total_lines: z.number().int(),
  byte_offset: z.number().int(),
  byte_length: z.number().int(),
  revision: z.string(),
  truncated: z.boolean(),
  continuation: z.string().nullable(),
});
export type FsReadResult = z.infer<typeof fsReadResult>;

/** Byte offset where 1-based `line` starts: in `head` when the whole file is there, else scanned off the main thread. */
async function offsetOfLine(fd: number, head: Buffer | undefined, size: number, line: number, signal: AbortSignal): Promise<number> {
  let current = 1;
  if (head) {
    for (let i = head.indexOf(10); i !== -1; i = head.indexOf(10, i + 1)) if (++current === line) return i + 1;
    return size;
  }
  let at = size;
  await forEachChunk(fd, 0, signal, (chunk, pos) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      if (++current === line) {
        at = pos + i + 1;
        return true;
      }
    }
    return false;
  });
  return Math.min(at, size);
}

/** fs.read: a bounded, resumable page of a file, with the whole file's digest. */
export function createFsRead(): ToolDefinition<FsReadArgs, FsReadResult, ResolvedPath> {
  const infos = new FileInfoCache();
  return defineTool<FsReadArgs, FsReadResult, ResolvedPath>({
    name: 'fs.read',
    module: import.meta.url,
    version: '1.1.0',
    description:
      'Read a text file beneath the workspace root in bounded pages (default: 2000 lines or about 20k tokens). Returns the content, the whole file sha256, the line range and, when truncated, a continuation token for the next page.',
    owner: 'toolgate',
    effect_class: 'read',
    reversible: true,
    capabilities: ['fs.read'],
    args: fsReadArgs,
    result: fsReadResult,
    timeout_ms: 30_000,
    max_output_bytes: FS_READ_MAX_BYTES,
    // The page is the file's content at the recorded revision: its receipt keeps the digest.
    bound: ['/content'],
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize(args, ctx) {
      const resolved = ctx.workspace.resolve(args.path);
      if (!resolved.exists) throw new ToolgateError('not_found', `no such file: ${resolved.path}`, { path: resolved.path });
      if (resolved.kind === 'directory') throw new ToolgateError('invalid_resource', `${resolved.path} is a directory`, { path: resolved.path, kind: 'directory' });
      if (resolved.components.some(isToolgateTempName)) {
        // Half-written or half-deleted state of another call (or left by a crash): never content.
        throw new ToolgateError('invalid_resource', `${resolved.path} is a Toolgate temporary entry`, { path: resolved.path, reason: 'toolgate_temp_file' });
      }
      if (ctx.workspace.classifier.classify(resolved.path) === 'secret') {
        throw new ToolgateError('secret_path', `${resolved.path} is classified as a secret path`, { path: resolved.path });
      }
      return { resources: [{ kind: 'path', path: resolved.path, access: 'read' }], prepared: resolved };
    },
    async execute(ctx) {
      const { args, prepared } = ctx;
      const { fd, st: opened } = ctx.workspace.openFileForRead(prepared);
      try {
        // No bound given: the default window for a model's context. Any explicit bound replaces it.
        const unbounded = args.max_bytes === undefined && args.max_lines === undefined;
        const maxBytes = args.max_bytes ?? (unbounded ? FS_READ_DEFAULT_MAX_BYTES : FS_READ_LINES_PAGE_MAX_BYTES);
        const maxLines = unbounded ? FS_READ_DEFAULT_MAX_LINES : args.max_lines;
        // A small file is read once: the same bytes give the page and, on a cache miss, the digest.
        // A hard link to a secret file is the secret (the name alone was checked at normalize).
        await refuseSecretLink(ctx.workspace, prepared.path, opened, ctx.signal);
        const statSize = opened.size;
        if (statSize > FS_READ_MAX_FILE_BYTES) {
          throw new ToolgateError('limit_exceeded', `${prepared.path} is ${statSize} bytes; fs.read pages files up to ${FS_READ_MAX_FILE_BYTES} bytes (each page reports the whole file's sha256): read part of it with shell.exec (head, tail, dd)`, { limit: FS_READ_MAX_FILE_BYTES, size: statSize, path: prepared.path });
        }
        const head =
          statSize <= SYNC_READ_MAX ? readAt(fd, 0, statSize) : statSize <= WHOLE_FILE_FAST_PATH ? await readAtAsync(fd, 0, statSize, ctx.signal) : undefined;
        const info = (await infos.get(fd, ctx.signal, head, opened)).info;
        const size = info.size;

        let offset = 0;
        let line = args.start_line ?? 1;
        if (args.continuation !== undefined) {
          const p = ctx.tokens.verify('fs.read', args.continuation);
          if (p['path'] !== prepared.path) throw new ToolgateError('invalid_continuation', 'continuation was issued for another path', { path: prepared.path });
          if (p['sha256'] !== info.sha256) {
            throw new ToolgateError('stale_continuation', `${prepared.path} changed since the previous page`, { path: prepared.path, expected_sha256: p['sha256'], sha256: info.sha256 });
          }
          offset = Number(p['offset']);
          line = Number(p['line']);
        } else if (line > 1) {
          offset = await offsetOfLine(fd, head, size, line, ctx.signal);
        }

        const base = { path: prepared.path, sha256: info.sha256, size, total_lines: info.total_lines, revision: await ctx.revision.current() };
        if (info.binary) {
          return {
            status: 'succeeded',
            result: { ...base, content: null, binary: true, start_line: 0, end_line: 0, byte_offset: 0, byte_length: 0, truncated: false, continuation: null },
          };
        }
        ctx.signal.throwIfAborted();
        const want = Math.min(maxBytes, Math.max(0, size - offset));
        let page = head ? head.subarray(offset, offset + want) : await readAtAsync(fd, offset, want, ctx.signal);
        let cut = page.length;
        if (maxLines !== undefined) {
          let seen = 0;
          let i = page.indexOf(10);
          while (i !== -1) {
            if (++seen === maxLines) {
              cut = i + 1;
              break;
            }
            i = page.indexOf(10, i + 1);
          }
        }
        if (cut === page.length && offset + page.length < size) {
          const nl = page.lastIndexOf(10);
          cut = nl >= 0 ? nl + 1 : lastCharBoundary(page);
          if (cut === 0) cut = page.length; // a single code point wider than the page: never stall
        }
        page = page.subarray(0, cut);
        const content = page.toString('utf8');
        let newlines = 0;
        for (let i = page.indexOf(10); i !== -1; i = page.indexOf(10, i + 1)) newlines++;
        const endsLine = page.length > 0 && page[page.length - 1] === 10;
        const endLine = page.length === 0 ? line - 1 : line + newlines - (endsLine ? 1 : 0);
        const next = offset + page.length;
        const truncated = next < size;
        const continuation = truncated
          ? ctx.tokens.sign('fs.read', { path: prepared.path, sha256: info.sha256, offset: next, line: endsLine ? endLine + 1 : endLine })
          : null;
        // A page is a window of the file: the redact stage sees the bytes around it too.
        const window = await pageWindow(async (at, n) => (head ? head.subarray(at, at + n) : readAtAsync(fd, at, n, ctx.signal)), offset, page.length, size);
        return {
          status: 'succeeded',
          truncated,
          redaction_windows: [window],
          result: { ...base, content, binary: false, start_line: line, end_line: endLine, byte_offset: offset, byte_length: page.length, truncated, continuation },
        };
      } finally {
        closeSync(fd);
      }
    },
  });
}
