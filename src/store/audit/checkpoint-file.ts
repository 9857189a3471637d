import { open, readFile, rename, unlink } from 'node:fs/promises';
import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { Checkpoint } from './checkpoint.js';

/** The checkpoint file's parsed JSON, or null when there is none; a file that is not JSON throws. */
export async function readCheckpointFile(path: string): Promise<unknown> {
  const text = await readCheckpointText(path);
  return text === null ? null : (JSON.parse(text) as unknown);
}

/** The checkpoint file's text, or null when there is none. */
export async function readCheckpointText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** The file's text for a checkpoint (what writeCheckpointFile writes). */
function checkpointText(cp: Checkpoint): string {
  return `${JSON.stringify(cp, null, 2)}\n`;
}

/**
 * Replaces the file whole: written and fsync'ed under a temporary name, renamed over the old one,
 * then the folder fsync'ed, so after a crash the file is the old checkpoint or the new one.
 */
export async function writeCheckpointFile(path: string, cp: Checkpoint): Promise<string> {
  const text = checkpointText(cp);
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  const dir = await open(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
  return text;
}
