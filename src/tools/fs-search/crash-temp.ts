// Toolgate's own temporary names in the workspace: a staged write (`.tg-<hex>.tmp`, from
// resources/paths/atomic-replace.ts stageFile) and a tree moved aside for deletion
// (`.tg-<hex>.del`, from fs.delete). A crash can leave either behind until it is swept; they
// are not the user's files and are never listed or searched. The middle part is matched
// loosely (letters, digits, `-`, `_`) so that a name that also carries its owner still matches.
const CRASH_TEMP = /^\.tg-[0-9A-Za-z_-]+\.(?:tmp|del)$/;

/** Whether any component of the workspace-relative `path` is a Toolgate temp name (a `.del` is a tree). */
export function isCrashTemp(path: string): boolean {
  if (!path.includes('.tg-')) return false;
  return path.split('/').some((part) => CRASH_TEMP.test(part));
}
