import { join } from 'node:path';
import { runGit } from './run.js';

/** Where a work tree's git keeps its index, config and excludes. */
export interface GitLocations {
  readonly gitDir: string;
  readonly commonDir: string;
  readonly topLevel: string;
  readonly excludesFile: string | null;
}

/** Where git keeps what decides the file list of `root`; null when any of it cannot be found. */
export async function gitLocations(root: string, signal: AbortSignal): Promise<GitLocations | null> {
  const [dirs, excludes] = await Promise.all([
    runGit(root, ['rev-parse', '--absolute-git-dir', '--git-common-dir', '--show-toplevel'], signal),
    runGit(root, ['config', '--path', '--get', 'core.excludesFile'], signal),
  ]);
  if (dirs.code !== 0) return null;
  const [gitDir, common, topLevel] = dirs.stdout.toString('utf8').split('\n');
  if (!gitDir || !common || !topLevel) return null;
  const excludesFile = excludes.code === 0 ? excludes.stdout.toString('utf8').trim() || null : null;
  return { gitDir, commonDir: common.startsWith('/') ? common : join(root, common), topLevel, excludesFile };
}
