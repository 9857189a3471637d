import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { GrantFileError, parseGrantFile, type PolicySource, type TaskGrant } from '../policy/index.js';
import { UsageError } from './usage.js';

/** Reads `--grant FILE`: JSON checked against the grant schema; faults are usage errors. */
export function readGrantFile(path: string): TaskGrant {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--grant ${path}: ${(e as Error).message}`);
  }
  try {
    return parseGrantFile(value);
  } catch (e) {
    if (e instanceof GrantFileError) throw new UsageError(`--grant ${path}: ${e.message}`);
    throw e;
  }
}

/** Reads each `--policy FILE` (Cedar text); validation happens when the runtime starts. */
export function readPolicyFiles(paths: readonly string[]): PolicySource[] {
  return paths.map((path) => {
    try {
      return { name: basename(path), text: readFileSync(path, 'utf8') };
    } catch (e) {
      throw new UsageError(`--policy ${path}: ${(e as Error).message}`);
    }
  });
}
