// A file set torn by a crash: some paths at their post-images, the rest still at their
// pre-images (the all-or-nothing replacement moves one file at a time; a SIGKILL between two
// moves leaves a mix, found by the failpoint matrix, test/runtime/failpoints.test.ts). Reconcile
// puts the replaced files back from the pre-images recorded before the first move, so the
// workspace is the pre-image again and the effect is released: a retry then runs the whole set.
// Only when every replaced path still holds exactly this effect's post-image and its pre-image
// bytes are stored and match; anything else stays unknown, for an operator.
import { sha256Hex, type Digest } from '../../protocol/index.js';
import type { FileBytes } from '../paths/atomic-replace.js';
import { applyAllOrNothing, type FileChange } from '../paths/file-transaction.js';
import type { OpenedTarget } from '../paths/write-target.js';
import type { PreimageStore } from './context.js';
import { openForUndo } from './entry-at.js';
import type { FileImage } from './record.js';

/** A path of the set this effect replaced (it holds the post-image), with where its pre-image is. */
export interface TornPath {
  readonly path: string;
  /** Null when the effect created the file (rolling back removes it). */
  readonly before: FileImage | null;
}

function bytesOf(artifacts: PreimageStore, img: FileImage): FileBytes | null {
  if (img.artifact === null) return null;
  try {
    const data = artifacts.get(img.artifact as Digest).subarray(img.offset, img.offset + img.size);
    return sha256Hex(data) === img.sha256 ? { data, mode: img.mode } : null;
  } catch {
    return null;
  }
}

/** Puts each replaced path back to its pre-image, all or nothing; the paths rolled back, or null when it could not. */
export async function rollBackTornSet(ws: Parameters<typeof openForUndo>[0], artifacts: PreimageStore, torn: readonly TornPath[]): Promise<string[] | null> {
  const opened: OpenedTarget[] = [];
  try {
    const changes: FileChange[] = [];
    for (const t of torn) {
      const after = t.before === null ? null : bytesOf(artifacts, t.before);
      if (t.before !== null && after === null) return null; // the pre-image's bytes are not stored
      const target = openForUndo(ws, t.path, false);
      if (target === null) return null; // a post-image that removed the file: not rolled back here
      opened.push(target);
      changes.push({
        site: { root: ws.root, dir: target.dir, path: target.path, dirfd: target.dirfd, parent: target.parent, name: target.name, expected: target.state },
        before: target.current,
        after,
      });
    }
    const tx = await applyAllOrNothing(changes);
    return tx.ok ? torn.map((t) => t.path) : null;
  } finally {
    for (const t of opened) t.close();
  }
}
