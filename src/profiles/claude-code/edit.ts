// Edit → fs.patch with one exact edit (unique unless replace_all; Toolgate refuses ambiguity as
// the original does, with its words). An empty old_string creates the file (fs.write, create
// only), as the original does for a missing file.
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { editFailure, SAME_STRINGS } from './edit-errors.js';
import { workspacePath } from '../paths.js';
import { EDIT_SCHEMA } from './schemas.js';
import { failed, ok, pathFailure, resultOf } from './text.js';

interface EditArgs {
  readonly file_path: string;
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean;
}

/** Remembers the file's new sha256 after a change (fs.patch's files[0], or fs.write's result). */
export function rememberWritten(r: Receipt, ctx: ProfileContext): void {
  const res = resultOf(r);
  const files = res['files'];
  const first = Array.isArray(files) ? (files[0] as Record<string, unknown> | undefined) : undefined;
  const path = first?.['path'] ?? res['path'];
  const sha = first?.['sha256'] ?? res['sha256'];
  if (typeof path === 'string' && typeof sha === 'string') ctx.files.set(path, sha);
}

export const editTool: ProfileTool = {
  name: 'Edit',
  description: EDIT_SCHEMA['description'] as string,
  inputSchema: EDIT_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as EditArgs;
    const path = workspacePath(a.file_path, ctx.root);
    if (a.old_string === '') {
      if (a.new_string === '') return { refuse: { code: 'no_change', text: SAME_STRINGS } };
      return { call: { tool: 'fs.write', arguments: { path, content: a.new_string, mode: 'create', create_parents: true } } };
    }
    return { call: { tool: 'fs.patch', arguments: { files: [{ path, edits: [{ old: a.old_string, new: a.new_string, ...(a.replace_all ? { replace_all: true } : {}) }] }] } } };
  },
  observe: (r, _args, ctx) => rememberWritten(r, ctx),
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as EditArgs;
    if (r.status === 'succeeded') {
      return ok(
        a.replace_all
          ? `The file ${a.file_path} has been updated. All occurrences of '${a.old_string}' were successfully replaced with '${a.new_string}'.`
          : `The file ${a.file_path} has been updated successfully.`,
      );
    }
    if (r.tool === 'fs.write') return r.error?.code === 'already_exists' ? failed('Cannot create new file - file already exists.') : pathFailure(r, a.file_path, ctx.root);
    return editFailure(r, [a], a.file_path, ctx.root);
  },
};
