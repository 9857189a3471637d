// Toolgate's own temporary names in the workspace (a staged write, a tree moved aside for
// deletion, an entry being restored; resources/paths/temp-name.ts says which): a crash can leave
// one behind until the next runtime sweeps it. They are not the user's files and are never
// listed or searched.
import { isToolgateTempName } from '../../resources/index.js';

/** Whether any component of the workspace-relative `path` is a Toolgate temp name (a `.del` is a tree). */
export function isCrashTemp(path: string): boolean {
  if (!path.includes('.tg-')) return false;
  return path.split('/').some(isToolgateTempName);
}
