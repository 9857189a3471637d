import { ToolgateError } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import { isToolgateTempName, openDirectoryBeneath, type ResolvedPath } from '../../resources/index.js';
import { closeSync } from 'node:fs';
import { ignoreRules } from './ignore.js';
import { renderListing } from './render.js';
import { fsListArgs, fsListResult, MAX_ENTRIES_LIMIT, MORE_COUNT_LIMIT, type FsListArgs, type FsListResult, type ListEntry } from './schema.js';
import { walkListing } from './walk.js';

const TOKEN_KIND = 'fs.list';

function continuationOf(tokens: { verify(kind: string, token: string): Record<string, unknown> }, a: FsListArgs, path: string): string[] | null {
  if (a.continuation === undefined) return null;
  const p = tokens.verify(TOKEN_KIND, a.continuation);
  if (p['path'] !== path || p['depth'] !== a.depth || p['include_ignored'] !== a.include_ignored || p['include_generated'] !== a.include_generated) {
    throw new ToolgateError('invalid_continuation', 'continuation was issued for another listing (path, depth or include options differ)', { path });
  }
  const after = p['after'];
  if (!Array.isArray(after) || !after.every((c) => typeof c === 'string')) throw new ToolgateError('invalid_continuation', 'malformed fs.list continuation', { path });
  return after as string[];
}

/** fs.list: a bounded directory tree beneath the workspace (like ls -R / tree -L), links shown as links. */
export function createFsList(): ToolDefinition<FsListArgs, FsListResult, ResolvedPath> {
  return defineTool<FsListArgs, FsListResult, ResolvedPath>({
    name: 'fs.list',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'List a directory beneath the workspace as a tree (like ls -R or tree -L DEPTH): each entry with its type and size, links shown as links with their target when it stays inside the workspace. Honours .gitignore, leaves out node_modules/, dist/ and secret paths and counts them. Bounded by max_entries, with the count of what is left and a continuation token.',
    owner: 'toolgate',
    effect_class: 'read',
    reversible: true,
    capabilities: ['fs.read'],
    args: fsListArgs,
    result: fsListResult,
    timeout_ms: 30_000,
    max_output_bytes: 4 * 1024 * 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize(args, ctx) {
      const resolved = ctx.workspace.resolve(args.path);
      if (!resolved.exists) throw new ToolgateError('not_found', `no such directory: ${resolved.path}`, { path: resolved.path });
      if (resolved.components.some(isToolgateTempName)) {
        throw new ToolgateError('invalid_resource', `${resolved.path} is a Toolgate temporary entry`, { path: resolved.path, reason: 'toolgate_temp_file' });
      }
      if (ctx.workspace.classifier.classify(resolved.path) === 'secret') {
        throw new ToolgateError('secret_path', `${resolved.path} is classified as a secret path`, { path: resolved.path });
      }
      if (resolved.kind !== 'directory') {
        throw new ToolgateError('invalid_resource', `${resolved.path} is a ${resolved.kind ?? 'missing entry'}, not a directory: read it with fs.read`, { path: resolved.path, kind: resolved.kind ?? 'unknown' });
      }
      return { resources: [{ kind: 'path', path: resolved.path, access: 'read' }], prepared: resolved };
    },
    async execute(ctx) {
      const { args: a, prepared } = ctx;
      const after = continuationOf(ctx.tokens, a, prepared.path);
      const ignore = a.include_ignored ? { ignored: () => false } : await ignoreRules(ctx.workspace.root, ctx.signal);
      const dir = openDirectoryBeneath(ctx.workspace.rootFd, ctx.workspace.root, prepared.components, { create: false });
      try {
        if (prepared.identity && (dir.identity.dev !== prepared.identity.dev || dir.identity.ino !== prepared.identity.ino)) {
          throw new ToolgateError('precondition_failed', `${prepared.path} changed between authorization and use`, { path: prepared.path, reason: 'identity_changed' });
        }
        const walked = walkListing({
          ws: ctx.workspace,
          top: prepared.path,
          topFd: dir.fd,
          depth: a.depth,
          maxEntries: Math.min(a.max_entries, MAX_ENTRIES_LIMIT),
          moreLimit: MORE_COUNT_LIMIT,
          includeGenerated: a.include_generated,
          ignore,
          after,
          signal: ctx.signal,
        });
        const truncated = walked.more > 0;
        const continuation =
          truncated && walked.last !== null
            ? ctx.tokens.sign(TOKEN_KIND, { path: prepared.path, depth: a.depth, include_ignored: a.include_ignored, include_generated: a.include_generated, after: walked.last })
            : null;
        const body = {
          path: prepared.path,
          depth: a.depth,
          entries: walked.entries satisfies ListEntry[],
          omitted: walked.omitted,
          truncated,
          more: walked.more,
          more_exact: walked.moreExact,
          continuation,
          revision: await ctx.revision.current(),
        };
        return { status: 'succeeded', truncated, result: { ...body, text: renderListing(body) } };
      } finally {
        if (dir.fd !== ctx.workspace.rootFd) closeSync(dir.fd);
      }
    },
  });
}
