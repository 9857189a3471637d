// Write → fs.write. A new file is created (with its parent directories); an existing file is
// replaced only when this task read (or wrote) it, bound to the sha256 it saw — the original's
// read-before-write guard, with its exact words, enforced by fs.write's precondition instead of
// by a harness that may be bypassed. Without a read, a file that exists is refused.
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { rememberWritten } from './edit.js';
import { workspacePath } from '../paths.js';
import { WRITE_SCHEMA } from './schemas.js';
import { failed, ok, pathFailure, resultOf } from './text.js';

interface WriteArgs {
  readonly file_path: string;
  readonly content: string;
}

export const NOT_READ_YET = 'File has not been read yet. Read it first before writing to it.';
export const MODIFIED_SINCE_READ = 'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';

export const writeTool: ProfileTool = {
  name: 'Write',
  description: WRITE_SCHEMA['description'] as string,
  inputSchema: WRITE_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as WriteArgs;
    const path = workspacePath(a.file_path, ctx.root);
    const seen = ctx.files.get(path);
    return {
      call: {
        tool: 'fs.write',
        arguments: seen === undefined ? { path, content: a.content, mode: 'create', create_parents: true } : { path, content: a.content, mode: 'replace', expected_sha256: seen },
      },
    };
  },
  observe: (r, _args, ctx) => rememberWritten(r, ctx),
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as WriteArgs;
    if (r.status === 'succeeded') {
      return ok(resultOf(r)['created'] === true ? `File created successfully at: ${a.file_path}` : `The file ${a.file_path} has been updated successfully.`);
    }
    const code = r.error?.code;
    if (code === 'already_exists') return failed(NOT_READ_YET);
    // Changed since the read — or deleted since (mode replace finds no file).
    if (code === 'precondition_failed' || code === 'not_found') return failed(MODIFIED_SINCE_READ);
    return pathFailure(r, a.file_path, ctx.root);
  },
};
