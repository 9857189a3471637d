import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { ToolgateError } from '../protocol/index.js';
import { syncFolder, type Workspace } from '../resources/index.js';

/** `$XDG_STATE_HOME/toolgate/<workspace id>` (or `~/.local/state/…`), unless given. */
export function defaultStateDir(workspace: Workspace, env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_STATE_HOME'] && env['XDG_STATE_HOME'].startsWith('/') ? env['XDG_STATE_HOME'] : join(homedir(), '.local', 'state');
  return join(base, 'toolgate', workspace.id);
}

/**
 * Creates `dir` and its missing parents. Not `mkdirSync(dir, { recursive: true })`: Node's
 * recursive mkdir never returns when mkdir(2) of a parent keeps failing with ENOENT (a state dir
 * under /proc spins at full CPU forever), so each missing component is made here, bounded by the
 * path's depth, and a failure is the typed `store_unavailable`. Each one made is synced in its
 * parent (once, at open): the receipts synced inside a state dir whose own entry is not would be
 * lost with it at a power loss on a file system that does not commit a new folder with its
 * children's syncs (XFS, btrfs).
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode: 0o700 });
      syncMadeIn(dirname(d));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? null;
      if (code === 'EEXIST') continue;
      throw new ToolgateError('store_unavailable', `the state dir cannot be created: ${(e as Error).message}`, { operation: 'create the state dir', cause_code: code, state_dir: dir }, { cause: e });
    }
  }
}

/** syncFolder of a parent the state dir was made in; one this process may not read (write and search only) is left as it is. */
function syncMadeIn(parent: string): void {
  try {
    syncFolder(parent);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw e;
  }
}

/** Creates the state dir and refuses one inside the workspace, where tools could reach it. */
export function prepareStateDir(workspace: Workspace, given: string | undefined): string {
  const dir = resolve(given ?? defaultStateDir(workspace));
  makeDirs(dir);
  const real = realpathSync(dir);
  if (real === workspace.root || real.startsWith(workspace.root + '/')) {
    throw new ToolgateError('invalid_resource', 'the state dir must lie outside the workspace, where no tool can read or write it', {
      state_dir: real,
      workspace: workspace.root,
    });
  }
  return real;
}
