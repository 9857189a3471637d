// MultiEdit → ONE fs.patch with all the edits: all or nothing, as the original. Toolgate places
// every edit in the file as it was before the call (fs.patch's contract), where the original
// applied each to the result of the previous one: an edit that targets text an earlier edit of the
// same call wrote is refused (no_match), never applied half-way (docs/profiles.md).
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { rememberWritten } from './edit.js';
import { editFailure, type EditStrings } from './edit-errors.js';
import { workspacePath } from '../paths.js';
import { MULTIEDIT_SCHEMA } from './schemas.js';
import { failed, ok } from './text.js';

interface MultiEditArgs {
  readonly file_path: string;
  readonly edits: readonly (EditStrings & { readonly replace_all?: boolean })[];
}

export const multiEditTool: ProfileTool = {
  name: 'MultiEdit',
  description: MULTIEDIT_SCHEMA['description'] as string,
  inputSchema: MULTIEDIT_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as MultiEditArgs;
    const edits = a.edits.map((e) => ({ old: e.old_string, new: e.new_string, ...(e.replace_all ? { replace_all: true } : {}) }));
    return { call: { tool: 'fs.patch', arguments: { files: [{ path: workspacePath(a.file_path, ctx.root), edits }] } } };
  },
  observe: (r, _args, ctx) => rememberWritten(r, ctx),
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as MultiEditArgs;
    if (r.status === 'succeeded') return ok(`Applied ${a.edits.length} edit${a.edits.length === 1 ? '' : 's'} to ${a.file_path}.`);
    const d = r.error?.data as { faults?: { pointer?: string }[] } | undefined;
    // fs.patch refuses an empty old text in its schema: the original would create the file.
    if (r.error?.code === 'invalid_arguments' && d?.faults?.some((f) => /\/edits\/\d+\/old$/.test(f.pointer ?? ''))) {
      return failed('old_string is empty: MultiEdit does not create files here; use Write to create the file.');
    }
    return editFailure(r, a.edits, a.file_path, ctx.root);
  },
};
