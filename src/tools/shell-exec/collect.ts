import { closeSync } from 'node:fs';
import { ToolgateError, type ArtifactRef } from '../../protocol/index.js';
import type { ArtifactSink } from '../../registry/index.js';
import { readAt, type Workspace } from '../../resources/index.js';
import { SecretFilter } from '../../sandbox/index.js';

export const MAX_COLLECT_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_COLLECT_TOTAL_BYTES = 32 * 1024 * 1024;

export interface Collected {
  readonly path: string;
  readonly artifact: ArtifactRef | null;
  readonly error: string | null;
}

/**
 * Stores workspace files named by `collect` as artifacts after the command ended: each opened
 * beneath the root without following links, bounded per file and in total, secret paths
 * refused, injected secret values redacted like the output streams.
 */
export function collectFiles(paths: readonly string[], workspace: Workspace, artifacts: ArtifactSink, secrets: readonly string[]): Collected[] {
  const out: Collected[] = [];
  let total = 0;
  for (const asked of paths) {
    try {
      const resolved = workspace.resolve(asked);
      if (!resolved.exists) throw new ToolgateError('not_found', `no such file: ${resolved.path}`, { path: resolved.path });
      if (workspace.classifier.classify(resolved.path) === 'secret') throw new ToolgateError('secret_path', `${resolved.path} is classified as a secret path`, { path: resolved.path });
      const { fd, st } = workspace.openFileForRead(resolved);
      try {
        const size = st.size;
        if (size > MAX_COLLECT_FILE_BYTES) throw new ToolgateError('limit_exceeded', `${resolved.path} is ${size} bytes, over ${MAX_COLLECT_FILE_BYTES}`, { path: resolved.path, size, limit: MAX_COLLECT_FILE_BYTES });
        if (total + size > MAX_COLLECT_TOTAL_BYTES) throw new ToolgateError('limit_exceeded', `collecting ${resolved.path} would pass ${MAX_COLLECT_TOTAL_BYTES} bytes in total`, { path: resolved.path, total: total + size, limit: MAX_COLLECT_TOTAL_BYTES });
        const filter = new SecretFilter(secrets);
        const data = Buffer.concat([filter.push(readAt(fd, 0, size)), filter.flush()]);
        total += size;
        out.push({ path: resolved.path, artifact: artifacts.put(data, 'application/octet-stream', `collect:${resolved.path}`), error: null });
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      out.push({ path: asked, artifact: null, error: ToolgateError.isInstance(e) ? `${e.code}: ${e.message}` : (e as Error).message });
    }
  }
  return out;
}
