// LS (legacy) → fs.list: the directory as an indented `- name` tree, three levels deep, at most
// 1,000 entries; `ignore` globs leave out matching entries (and what is beneath them), matched
// against the entry's name and its path below the listed directory.
import picomatch from 'picomatch';
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { absolutePath, workspacePath } from '../paths.js';
import { LS_SCHEMA } from './schemas.js';
import { failed, pathFailure, ok, resultOf } from './text.js';

export const LS_DEPTH = 3;
export const LS_MAX_ENTRIES = 1000;

interface LsArgs {
  readonly path: string;
  readonly ignore?: readonly string[];
}

interface Entry {
  readonly path: string;
  readonly type: string;
  readonly depth: number;
}

export const lsTool: ProfileTool = {
  name: 'LS',
  description: LS_SCHEMA['description'] as string,
  inputSchema: LS_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as LsArgs;
    return { call: { tool: 'fs.list', arguments: { path: workspacePath(a.path, ctx.root), depth: LS_DEPTH, max_entries: LS_MAX_ENTRIES } } };
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as LsArgs;
    if (r.status !== 'succeeded') {
      if (r.error?.code === 'invalid_resource') return failed(`${a.path} is not a directory.`);
      return r.error?.code === 'not_found' ? failed(`Directory ${a.path} does not exist.`) : pathFailure(r, a.path, ctx.root);
    }
    const res = resultOf(r);
    const base = String(res['path']);
    const ignored = a.ignore && a.ignore.length > 0 ? picomatch([...a.ignore], { dot: true }) : null;
    const below = (p: string): string => (base === '.' ? p : p.slice(base.length + 1));
    const lines = [`- ${absolutePath(base, ctx.root).replace(/\/?$/, '/')}`];
    let hiddenUnder: string | null = null;
    for (const e of (res['entries'] as Entry[] | null) ?? []) {
      const rel = below(e.path);
      if (hiddenUnder !== null && rel.startsWith(`${hiddenUnder}/`)) continue;
      hiddenUnder = null;
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      if (ignored !== null && (ignored(name) || ignored(rel))) {
        hiddenUnder = rel;
        continue;
      }
      lines.push(`${'  '.repeat(e.depth)}- ${name}${e.type === 'directory' ? '/' : ''}`);
    }
    if (res['truncated'] === true) lines.push('', `(Listing truncated: ${String(res['more'])}${res['more_exact'] === true ? '' : '+'} more entries. List a subdirectory, or use Glob.)`);
    return ok(lines.join('\n'));
  },
};
