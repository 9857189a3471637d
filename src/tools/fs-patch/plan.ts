// Checks one entry of a patch against the file as opened and computes its new content, or
// throws the typed refusal. Nothing is written here: the execute step commits every plan of a
// call as one file set, after all of them were computed.
import { ToolgateError, sha256Hex } from '../../protocol/index.js';
import { nextTurn, usesCrlf, writableMode, type FileBytes, type OpenedTarget, type WriteTarget } from '../../resources/index.js';
import { applyEdits } from './apply.js';
import { diffHunks, type FileDiff } from './diff.js';
import { FS_PATCH_MAX_FILE_BYTES } from './file-entry.js';
import type { AppliedEdit, Edit } from './edits.js';
import { applyHunks } from './hunks.js';
import type { FilePatch } from './parse.js';
import { decodeText, fromLines, toLines, type Lines } from './text.js';

export type Change =
  | { readonly kind: 'edits'; readonly edits: readonly Edit[]; readonly expected_sha256: string | undefined }
  | { readonly kind: 'diff'; readonly patch: FilePatch }
  | { readonly kind: 'create'; readonly content: string; readonly overwrite: true | 'any' | undefined; readonly expected_sha256: string | undefined }
  | { readonly kind: 'delete'; readonly expected_sha256: string | undefined }
  /** The source of a move: removed; its (edited) content goes to the next entry, the destination. */
  | { readonly kind: 'move_from'; readonly edits: readonly Edit[] | undefined; readonly expected_sha256: string | undefined; readonly to: string }
  | { readonly kind: 'move_to'; readonly from: string; readonly overwrite: 'any' | undefined };

export interface PreparedFile {
  readonly target: WriteTarget;
  readonly change: Change;
}

/** The entry makes a file that may not exist yet (its directories are made at the point of effect). */
export function createsFile(c: Change): boolean {
  return (c.kind === 'diff' && c.patch.oldPath === null) || c.kind === 'create' || c.kind === 'move_to';
}

/** The entry removes the file at its path. */
export function removesFile(c: Change): boolean {
  return (c.kind === 'diff' && c.patch.newPath === null) || c.kind === 'delete' || c.kind === 'move_from';
}

export interface FilePlan {
  readonly after: FileBytes | null;
  /** null for a move's source: the destination's diff shows the move. */
  readonly diff: FileDiff | null;
  readonly edits?: AppliedEdit[];
  /** A move's source: the content and lines as read, for the destination. */
  readonly moved?: { readonly bytes: FileBytes; readonly before: Lines | null };
}

/** A patch that leaves a file byte-for-byte as it is would only rewrite it (new inode, new revision): refused. */
function refuseNoChange(path: string, cur: FileBytes | null, after: Uint8Array, mode: number): void {
  if (cur && (cur.mode & 0o777) === (mode & 0o777) && Buffer.from(cur.data).equals(after)) {
    throw new ToolgateError('no_change', `the patch leaves ${path} as it is; nothing to write`, { path });
  }
}

function checkSha(path: string, cur: FileBytes | null, expected: string | undefined): void {
  if (expected === undefined) return;
  if (!cur) throw new ToolgateError('precondition_failed', `${path} does not exist; expected_sha256 binds a file that is not there`, { path, reason: 'stale_sha256', expected_sha256: expected });
  const actual = sha256Hex(cur.data);
  if (actual !== expected) throw new ToolgateError('precondition_failed', `${path} does not have the expected sha256`, { path, reason: 'stale_sha256', expected_sha256: expected, actual_sha256: actual });
}

function owner(cur: FileBytes | null): { uid?: number; gid?: number } {
  return cur?.uid !== undefined && cur.gid !== undefined ? { uid: cur.uid, gid: cur.gid } : {};
}

/**
 * Files at least this large let the event loop run between the passes over their text (decode,
 * split, edit, encode, split again, compare, diff: 5-15 ms each for 4 MB). All of them in one go
 * held it 73-172 ms for one edit in a 4 MB file, and every other call on the server waited.
 */
export const PACE_TEXT_BYTES = 1024 * 1024;

/** A turn of the event loop between two passes over a large file's text; nothing for a small one. */
export type Turn = () => Promise<void>;
const turnsFor = (size: number, turn: Turn): Turn => (size >= PACE_TEXT_BYTES ? turn : async () => undefined);

function linesOf(cur: FileBytes | null, path: string): Lines {
  return cur ? toLines(decodeText(cur.data, path)) : { lines: [], eofNewline: true };
}

/** The structured edits of one file applied to its text as read. */
async function edited(path: string, cur: FileBytes, edits: readonly Edit[], boundBySha: boolean, turn: Turn): Promise<{ bytes: Buffer; before: Lines; after: Lines; applied: AppliedEdit[] }> {
  // The text as read is edited as it is (its lines joined again are the same string).
  const read = decodeText(cur.data, path);
  await turn();
  const before = toLines(read);
  await turn();
  const { text, applied } = applyEdits(path, read, edits, { crlf: usesCrlf(cur.data), boundBySha });
  await turn();
  const bytes = Buffer.from(text, 'utf8');
  await turn();
  const after = toLines(text);
  await turn();
  return { bytes, before, after, applied };
}

/** Where each edit landed and what it matched (an exact edit too: a caller shows the lines around it). */
function reportEdits(applied: AppliedEdit[]): { edits?: AppliedEdit[] } {
  return applied.length > 0 ? { edits: applied } : {};
}

/** `turn` lets the event loop run between passes over a large file (injectable: tests count them). */
export async function plan(f: PreparedFile, opened: OpenedTarget | null, previous: FilePlan | undefined, turn: Turn = nextTurn): Promise<FilePlan> {
  const path = f.target.path;
  const cur = opened?.current ?? null;
  const { change } = f;
  const pass = turnsFor(Math.max(cur?.data.length ?? 0, change.kind === 'create' ? change.content.length : 0), turn);
  const oldMode = cur ? writableMode(cur.mode) : null;
  switch (change.kind) {
    case 'edits': {
      if (!cur) throw new ToolgateError('not_found', `no such file: ${path}`, { path });
      checkSha(path, cur, change.expected_sha256);
      const e = await edited(path, cur, change.edits, change.expected_sha256 !== undefined, pass);
      const mode = oldMode ?? 0o644;
      refuseNoChange(path, cur, e.bytes, mode);
      await pass();
      return { after: { data: e.bytes, mode, ...owner(cur) }, diff: { path, status: 'modified', oldMode, newMode: oldMode, hunks: diffHunks(e.before, e.after) }, ...reportEdits(e.applied) };
    }
    case 'create': {
      if (cur || opened?.state.kind === 'other') {
        if (change.overwrite === undefined) throw new ToolgateError('already_exists', `${path} already exists; pass overwrite (with its expected_sha256, or "any") to replace it`, { path });
        if (change.overwrite === true) checkSha(path, cur, change.expected_sha256);
      } else if (change.overwrite === true) checkSha(path, null, change.expected_sha256);
      const bytes = Buffer.from(change.content, 'utf8');
      if (bytes.length > FS_PATCH_MAX_FILE_BYTES) throw new ToolgateError('limit_exceeded', `the content for ${path} is larger than ${FS_PATCH_MAX_FILE_BYTES} bytes`, { path, size: bytes.length, limit: FS_PATCH_MAX_FILE_BYTES });
      const mode = oldMode ?? 0o644;
      refuseNoChange(path, cur, bytes, mode);
      const before = cur ? linesOf(cur, path) : { lines: [], eofNewline: true };
      await pass();
      const after = toLines(change.content);
      await pass();
      return { after: { data: bytes, mode, ...owner(cur) }, diff: { path, status: cur ? 'modified' : 'created', oldMode, newMode: mode, hunks: diffHunks(before, after) } };
    }
    case 'delete': {
      if (!cur) throw new ToolgateError('not_found', `no such file: ${path}`, { path });
      checkSha(path, cur, change.expected_sha256);
      const before = linesOf(cur, path);
      await pass();
      return { after: null, diff: { path, status: 'deleted', oldMode, newMode: null, hunks: diffHunks(before, { lines: [], eofNewline: true }) } };
    }
    case 'move_from': {
      if (!cur) throw new ToolgateError('not_found', `no such file: ${path}`, { path });
      checkSha(path, cur, change.expected_sha256);
      const mode = oldMode ?? 0o644;
      if (change.edits === undefined) return { after: null, diff: null, moved: { bytes: { data: cur.data, mode, ...owner(cur) }, before: null } };
      const e = await edited(path, cur, change.edits, change.expected_sha256 !== undefined, pass);
      return { after: null, diff: null, moved: { bytes: { data: e.bytes, mode, ...owner(cur) }, before: e.before }, ...reportEdits(e.applied) };
    }
    case 'move_to': {
      const moved = previous?.moved;
      if (!moved) throw new ToolgateError('internal_error', `the move to ${path} has no source`, {});
      if ((cur || opened?.state.kind === 'other') && change.overwrite !== 'any') {
        throw new ToolgateError('already_exists', `${path} exists; pass overwrite: "any" to replace it`, { path });
      }
      // A move without edits keeps the bytes as they are (binary files move too): no text diff.
      const hunks = moved.before ? diffHunks(moved.before, toLines(Buffer.from(moved.bytes.data).toString('utf8'))) : [];
      return {
        after: moved.bytes,
        diff: { path, from: change.from, status: 'renamed', oldMode: moved.bytes.mode, newMode: moved.bytes.mode, hunks },
        ...(previous?.edits ? { edits: previous.edits } : {}),
      };
    }
    case 'diff': {
      if (change.patch.oldPath === null) {
        if (cur || opened?.state.kind === 'other') throw new ToolgateError('already_exists', `${path} already exists`, { path });
      } else if (!cur) throw new ToolgateError('not_found', `no such file: ${path}`, { path });
      const before = linesOf(cur, path);
      await pass();
      const { after, hunks } = applyHunks(path, before, change.patch.hunks);
      await pass();
      if (change.patch.newPath === null) {
        if (after.lines.length !== 0) throw new ToolgateError('no_match', `the diff deletes ${path} but the file has more lines than it removes`, { path, candidates: [] });
        return { after: null, diff: { path, status: 'deleted', oldMode, newMode: null, hunks } };
      }
      // parse admits only git's 100644 / 100755; the permission bits alone are kept, never set-id or sticky.
      const mode = change.patch.newMode !== null ? change.patch.newMode & 0o777 : (oldMode ?? 0o644);
      const bytes = Buffer.from(fromLines(after), 'utf8');
      await pass();
      refuseNoChange(path, cur, bytes, mode);
      return { after: { data: bytes, mode, ...owner(cur) }, diff: { path, status: cur ? 'modified' : 'created', oldMode, newMode: mode, hunks } };
    }
  }
}
