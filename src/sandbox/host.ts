import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { detectCgroups, type CgroupHost } from './cgroups.js';
import { sweepOrphanedSandboxes } from './process-table.js';
import { chooseShell, hardLimits, inheritedFds, type WrapperShell } from './wrapper.js';

/** What a Sandbox finds on the host once: bubblewrap, the wrapper shell, stray fds, cgroups, hard limits. */
export interface Host {
  readonly bwrap: string | null;
  readonly shell: WrapperShell | null;
  readonly strayFds: readonly number[];
  readonly cgroups: CgroupHost;
  readonly hard: ReturnType<typeof hardLimits>;
}

function findBwrap(given: string | null | undefined): string | null {
  if (given === null) return null;
  const candidates = given !== undefined ? [given] : ['/usr/bin/bwrap', ...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'bwrap'))];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  return null;
}

export function detectHost(bwrapPath: string | null | undefined): Host {
  const strayFds = inheritedFds();
  const bwrap = findBwrap(bwrapPath);
  // What dead runtimes left waiting: in their cgroups (detectCgroups) or, without groups, found by their owner mark.
  const cgroups = detectCgroups();
  if (bwrap !== null) sweepOrphanedSandboxes(bwrap);
  return { bwrap, shell: chooseShell(strayFds), strayFds, cgroups, hard: hardLimits() };
}
