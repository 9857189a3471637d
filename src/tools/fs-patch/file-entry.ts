// One entry of fs.patch `files[]`: edits of an existing file, or a whole-file operation
// (create, delete, move with or without edits). Every entry of a call is checked before any is
// written, and all are committed as one file set, so a whole-file operation is all-or-nothing
// with the rest of the patch.
import { z } from 'zod';
import { edit } from './edits.js';

export const FS_PATCH_MAX_FILES = 200;
export const FS_PATCH_MAX_FILE_BYTES = 8 * 1024 * 1024;
export const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'lowercase hex sha256');

export const fileEntry = z
  .strictObject({
    path: z.string().min(1),
    /** Binds the entry to the file as read: the file edited, deleted or moved, or the one a create overwrites. */
    expected_sha256: sha256.optional(),
    edits: z.array(edit).min(1).max(1000).optional(),
    /** The whole content of a new file (UTF-8 text). */
    create: z.string().max(FS_PATCH_MAX_FILE_BYTES).optional(),
    /** create: `true` replaces the file whose digest is expected_sha256, `"any"` whatever is there. move_to: `"any"` replaces a file at the destination. */
    overwrite: z.union([z.literal(true), z.literal('any')]).optional(),
    /** Remove the file (a directory is refused). */
    delete: z.literal(true).optional(),
    /** Move the file here (after its edits, if any); parents are created. */
    move_to: z.string().min(1).optional(),
  })
  .superRefine((f, ctx) => {
    const fault = (message: string, path: string): void => void ctx.addIssue({ code: 'custom', message, path: [path] });
    const kinds = [f.create !== undefined, f.delete === true, f.edits !== undefined || f.move_to !== undefined].filter(Boolean).length;
    if (kinds !== 1) fault('give exactly one of edits (with or without move_to), create, delete: true, or move_to', 'path');
    if (f.overwrite !== undefined && f.create === undefined && f.move_to === undefined) fault('overwrite applies to create and move_to only', 'overwrite');
    if (f.create !== undefined && f.overwrite === true && f.expected_sha256 === undefined) {
      fault('overwrite: true binds the replaced file: give its expected_sha256, or overwrite: "any"', 'overwrite');
    }
    if (f.create !== undefined && f.expected_sha256 !== undefined && f.overwrite !== true) {
      fault('expected_sha256 on create is the digest of the file it overwrites: give overwrite: true', 'expected_sha256');
    }
    if (f.move_to !== undefined && f.overwrite === true) fault('a move replaces an existing destination only with overwrite: "any" (expected_sha256 binds the source)', 'overwrite');
  });
export type FileEntry = z.infer<typeof fileEntry>;
