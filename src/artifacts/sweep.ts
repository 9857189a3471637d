// Removes artifact parts (`tmp/*.part`) whose writer process is gone: a crash mid-write left
// them, and nothing else would ever remove them. A live writer's part is kept.
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ownerIsGone } from '../resources/index.js';

export function sweepArtifactParts(artifactsDir: string, tmpDir = join(artifactsDir, 'tmp')): string[] {
  let names: string[];
  try {
    names = readdirSync(tmpDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (ownerIsGone(name) !== true) continue;
    try {
      unlinkSync(join(tmpDir, name));
      removed.push(name);
    } catch {
      // gone already
    }
  }
  return removed;
}
