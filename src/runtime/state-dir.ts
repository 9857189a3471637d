import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdirSync, realpathSync } from 'node:fs';
import { ToolgateError } from '../protocol/index.js';
import type { Workspace } from '../resources/index.js';

/** `$XDG_STATE_HOME/toolgate/<workspace id>` (or `~/.local/state/…`), unless given. */
export function defaultStateDir(workspace: Workspace, env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_STATE_HOME'] && env['XDG_STATE_HOME'].startsWith('/') ? env['XDG_STATE_HOME'] : join(homedir(), '.local', 'state');
  return join(base, 'toolgate', workspace.id);
}

/** Creates the state dir and refuses one inside the workspace, where tools could reach it. */
export function prepareStateDir(workspace: Workspace, given: string | undefined): string {
  const dir = resolve(given ?? defaultStateDir(workspace));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const real = realpathSync(dir);
  if (real === workspace.root || real.startsWith(workspace.root + '/')) {
    throw new ToolgateError('invalid_resource', 'the state dir must lie outside the workspace, where no tool can read or write it', {
      state_dir: real,
      workspace: workspace.root,
    });
  }
  return real;
}
