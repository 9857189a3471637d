// Glob → fs.search in filename mode, newest first (`order: "mtime"`). The pattern is a glob
// over paths relative to `path` (as a glob library reads it: `*.js` is the directory's own
// files, `**/*.js` every level), matched against workspace-relative paths; results as absolute
// paths, at most 100, with the original's truncation notice.
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { absolutePath } from '../paths.js';
import { GLOB_SCHEMA } from './schemas.js';
import { scopeOf } from './search-scope.js';
import { ok, resultOf, toolgateFailure } from './text.js';

export const GLOB_MAX_RESULTS = 100;

interface GlobArgs {
  readonly pattern: string;
  readonly path?: string;
}

export const globTool: ProfileTool = {
  name: 'Glob',
  description: GLOB_SCHEMA['description'] as string,
  inputSchema: GLOB_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as GlobArgs;
    const scope = scopeOf(a.path, ctx.root);
    if ('refuse' in scope) return scope;
    const pattern = a.pattern.replace(/^\.\//, '');
    const full = scope.prefix === null ? pattern : `${scope.prefix}/${pattern}`;
    return {
      call: {
        tool: 'fs.search',
        arguments: {
          mode: 'filename',
          query: '*',
          output: 'paths_only',
          order: 'mtime',
          include: [full],
          // A glob without a slash would match a file name at any depth in fs.search; here it means the root's own files.
          ...(full.includes('/') ? {} : { exclude: ['*/**'] }),
          include_generated: true,
          max_results: GLOB_MAX_RESULTS,
        },
      },
    };
  },
  render(r: Receipt, _raw: JsonObject, ctx: ProfileContext): ProfileText {
    if (r.status !== 'succeeded') return toolgateFailure(r);
    const res = resultOf(r);
    const paths = ((res['paths'] as unknown[] | null) ?? []).map((p) => absolutePath(String(p), ctx.root));
    if (paths.length === 0) return ok('No files found');
    const more = res['truncated'] === true ? '\n(Results are truncated. Consider using a more specific path or pattern.)' : '';
    return ok(`${paths.join('\n')}${more}`);
  },
};
