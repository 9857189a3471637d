// All-or-nothing replacement of a set of files. Everything was checked before this runs; here
// the new contents are staged and synced first, then moved into place one by one. When one
// fails, the ones already in place are put back from their preimages, newest first.
import { closeSync } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import {
  commitStaged,
  discardTemp,
  leafStateOf,
  removeAtSite,
  stageFile,
  stageFilePaced,
  syncDirectories,
  syncStaged,
  type EffectSite,
  type FileBytes,
  type LeafState,
  type StagedFile,
} from './atomic-replace.js';
import { holdEntry, releaseHeld } from './held-inodes.js';
import { PACE_BYTES, TreePacer } from './pacer.js';
import { failpoint } from '../../protocol/index.js';

export interface FileChange {
  /** `expected` is the entry's state when it was checked. */
  readonly site: EffectSite;
  /** What to put back on rollback; null when the file did not exist. */
  readonly before: FileBytes | null;
  /** The new content; null removes the file. */
  readonly after: FileBytes | null;
}

export type TransactionResult =
  | { readonly ok: true; readonly applied: readonly string[] }
  | {
      readonly ok: false;
      readonly error: ToolgateError;
      /** The change that failed. */
      readonly failed: string;
      /** Changed and still changed: a rollback that did not succeed. */
      readonly applied: readonly string[];
      readonly restored: readonly string[];
      readonly unapplied: readonly string[];
    };

export function asToolgateError(e: unknown, path: string): ToolgateError {
  if (ToolgateError.isInstance(e)) return e;
  const code = typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
  return new ToolgateError('execution_failed', `writing ${path} failed${code ? `: ${code}` : ''}`, { path, errno: code ?? null }, { cause: e });
}

/**
 * `beforeCommit` runs after the new contents are staged and while they are being synced, and
 * ends before the first entry moves: what must be durable before the effect (the intent, the
 * preimages) is made so in the same round of syncs instead of one more. If it throws, nothing is applied.
 */
export async function applyAllOrNothing(changes: readonly FileChange[], beforeCommit?: () => void | Promise<void>): Promise<TransactionResult> {
  const staged: (StagedFile | null)[] = [];
  try {
    // A large file is written a slice at a time, the event loop let run between (PACE_BYTES).
    const pacer = new TreePacer();
    for (const c of changes) staged.push(c.after === null ? null : c.after.data.length > PACE_BYTES ? await stageFilePaced(c.site.dirfd, c.after, pacer) : stageFile(c.site.dirfd, c.after));
    const syncing = syncStaged(staged.filter((s): s is StagedFile => s !== null));
    try {
      await beforeCommit?.();
    } finally {
      await syncing;
    }
  } catch (e) {
    changes.forEach((c, i) => {
      const s = staged[i];
      if (!s) return;
      if (s.fd >= 0) closeSync(s.fd);
      discardTemp(c.site.dirfd, s.tmp);
    });
    // A stage that threw names its file; a failed sync cannot be pinned to one.
    const failed = staged.length < changes.length ? ((changes[staged.length] as FileChange).site.path) : '(sync of staged files)';
    return { ok: false, error: asToolgateError(e, failed), failed, applied: [], restored: [], unapplied: changes.map((c) => c.site.path) };
  }

  const done: { change: FileChange; site: EffectSite }[] = [];
  // Replaced and removed files are freed off the event loop, while the directories sync.
  const held: number[] = [];
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i] as FileChange;
    const s = staged[i] ?? null;
    try {
      const { expected } = c.site;
      const fd = expected.kind === 'file' ? holdEntry(c.site.dirfd, c.site.name, expected) : null;
      if (fd !== null) held.push(fd);
      if (s) commitStaged(c.site, s.tmp);
      else removeAtSite(c.site);
      let now: LeafState;
      try {
        now = leafStateOf(c.site.dirfd, c.site.name);
      } catch {
        now = { kind: 'other', dev: -1, ino: -1 }; // unknown: a rollback of it will refuse and report it
      }
      done.push({ change: c, site: { ...c.site, expected: now } });
      failpoint('during_effect'); // one file in place, the rest (if any) not yet
    } catch (e) {
      for (let j = i; j < changes.length; j++) {
        const t = staged[j];
        if (t) discardTemp((changes[j] as FileChange).site.dirfd, t.tmp);
      }
      const [{ restored, unrestored }] = await Promise.all([rollBack(done), releaseHeld(held)]);
      return {
        ok: false,
        error: asToolgateError(e, c.site.path),
        failed: c.site.path,
        applied: unrestored,
        restored,
        unapplied: changes.slice(i).map((x) => x.site.path),
      };
    }
  }
  await Promise.all([syncDirectories(changes.map((c) => c.site.dirfd)), releaseHeld(held)]);
  return { ok: true, applied: changes.map((c) => c.site.path) };
}

/** Puts each committed change back, newest first; a rollback that meets a changed file leaves it. */
async function rollBack(done: readonly { change: FileChange; site: EffectSite }[]): Promise<{ restored: string[]; unrestored: string[] }> {
  const restored: string[] = [];
  const unrestored: string[] = [];
  for (const { change, site } of [...done].reverse()) {
    try {
      if (change.before) {
        const s = stageFile(site.dirfd, change.before);
        try {
          await syncStaged([s]);
          commitStaged(site, s.tmp);
        } catch (e) {
          discardTemp(site.dirfd, s.tmp);
          throw e;
        }
      } else {
        removeAtSite(site);
      }
      restored.push(site.path);
    } catch {
      unrestored.push(site.path);
    }
  }
  await syncDirectories(done.map((d) => d.site.dirfd)).catch(() => undefined);
  return { restored: restored.reverse(), unrestored: unrestored.reverse() };
}
