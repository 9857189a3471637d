import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** This process's descriptors that are inotify instances. */
function instances(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:inotify') out.push(fd);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** This process's inotify instances (fs.search's kept lists, the sandboxes' workspace watches). */
export function inotifyInstances(): number {
  return instances().length;
}

/** Watches held by this process's inotify instances (`inotify wd:` lines of their fdinfo). */
export function inotifyWatches(): number {
  let n = 0;
  for (const fd of instances()) {
    try {
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}
