// Secrecy follows the file, not the name: `ln .env x` makes `x` the same inode as `.env`, and
// reading `x` reads the secret. A regular file with one link has no other name, so only a file
// whose link count is above 1 needs a look; then the workspace is walked for secret-classified
// names and their device/inode compared with the file's. The walk reads directory entries only
// (d_type, no stat) and stats just the secret-named ones, off the main thread, under the call's
// signal. It fails closed: a walk that passes its bound counts as a match.
import { lstat, opendir } from 'node:fs/promises';
import { ToolgateError } from '../../protocol/index.js';
import type { Workspace } from './workspace.js';

/** Entries one check may list before it gives up and refuses (fail closed). */
export const SECRET_LINK_WALK_LIMIT = 500_000;

export interface LinkedFile {
  readonly dev: number;
  readonly ino: number;
  /** st_nlink: how many names the inode has. */
  readonly nlink: number;
}

/**
 * The workspace-relative secret path that is another name of `file`, `'(unverified)'` when the
 * walk passed its bound, or null. Files with a single link return null without a walk.
 */
export async function secretNameOf(ws: Workspace, file: LinkedFile, signal: AbortSignal): Promise<string | null> {
  if (file.nlink <= 1) return null;
  let listed = 0;
  const pending: string[] = [''];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    let dir;
    try {
      dir = await opendir(rel === '' ? ws.root : `${ws.root}/${rel}`);
    } catch {
      continue; // gone, or replaced by a non-directory since it was listed
    }
    try {
      for await (const entry of dir) {
        signal.throwIfAborted();
        if (++listed > SECRET_LINK_WALK_LIMIT) return '(unverified)';
        const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
        const cls = ws.classifier.classify(path);
        // d_type: a link to a directory is not a directory here, so no link is followed.
        if (entry.isDirectory()) {
          if (cls !== 'protected') pending.push(path);
          continue;
        }
        if (cls !== 'secret' || !entry.isFile()) continue;
        const st = await lstat(`${ws.root}/${path}`).catch(() => null);
        if (st && st.dev === file.dev && st.ino === file.ino) return path;
      }
    } finally {
      await dir.close().catch(() => undefined);
    }
  }
  return null;
}

/** Throws `secret_path` (reason `hard_link_to_secret`) when `file` is another name of a secret file. */
export async function refuseSecretLink(ws: Workspace, path: string, file: LinkedFile, signal: AbortSignal): Promise<void> {
  const secret = await secretNameOf(ws, file, signal);
  if (secret === null) return;
  throw new ToolgateError('secret_path', `${path} is a hard link to a secret file`, { path, reason: 'hard_link_to_secret', secret });
}
