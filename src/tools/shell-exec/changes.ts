import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { ArtifactWriter } from '../../registry/index.js';
import type { Digest } from '../../protocol/index.js';
import type { Sandbox } from '../../sandbox/index.js';

export const MAX_CHANGED_PATHS = 1000;
const MAX_STATUS_BYTES = 16 * 1024 * 1024;

/** `git status` of the work tree: path → XY code, plus a stat signature of each listed path. */
export interface StatusSnapshot {
  readonly codes: ReadonlyMap<string, string>;
  readonly signatures: ReadonlyMap<string, string>;
}

function signatureOf(root: string, path: string): string {
  try {
    const st = lstatSync(join(root, path));
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.mode}`;
  } catch {
    return 'missing';
  }
}

/** Collects a stream in memory instead of an artifact (bounded by the output cap). */
function memoryWriter(into: Buffer[]): ArtifactWriter {
  let bytes = 0;
  return {
    write: (c) => {
      into.push(Buffer.from(c));
      bytes += c.length;
    },
    close: () => ({ digest: 'sha256:' as Digest, bytes, media_type: 'application/octet-stream', role: 'git-status' }),
    abort: () => {},
  };
}

/**
 * Runs `git status` inside the sandbox, read-only and without network: the repository's own
 * config (fsmonitor, filters) may name programs, and they must not run on the host.
 * Returns null outside a git work tree or when git fails.
 */
export async function gitStatus(sandbox: Sandbox, root: string, signal: AbortSignal): Promise<StatusSnapshot | null> {
  if (!existsSync(join(root, '.git'))) return null;
  const full: Buffer[] = [];
  const r = await sandbox.run({
    argv: ['git', '-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'],
    cwd: root,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', GIT_OPTIONAL_LOCKS: '0', LANG: 'C.UTF-8' },
    timeoutMs: 15_000,
    internal: true, // a fixed argv on a read-only workspace: no secret scan needed
    workspaceWritable: false,
    limits: { output_bytes: MAX_STATUS_BYTES },
    signal,
    openArtifact: () => memoryWriter(full),
  });
  if (r.reason !== 'exited' || r.exit_code !== 0) return null;
  const text = full.length ? Buffer.concat(full).toString('utf8') : r.stdout.preview;
  const codes = new Map<string, string>();
  for (const entry of text.split('\0')) {
    if (entry.length < 4) continue;
    codes.set(entry.slice(3), entry.slice(0, 2));
  }
  const signatures = new Map<string, string>();
  for (const path of codes.keys()) signatures.set(path, signatureOf(root, path));
  return { codes, signatures };
}

/** Paths whose status changed, or that were dirty before and after but changed on disk. */
export function changedPaths(root: string, before: StatusSnapshot, after: StatusSnapshot): { paths: string[]; truncated: boolean } {
  const out = new Set<string>();
  for (const [path, code] of after.codes) {
    const was = before.codes.get(path);
    if (was !== code) out.add(path);
    else if (before.signatures.get(path) !== signatureOf(root, path)) out.add(path);
  }
  for (const path of before.codes.keys()) if (!after.codes.has(path)) out.add(path);
  const sorted = [...out].sort();
  return { paths: sorted.slice(0, MAX_CHANGED_PATHS), truncated: sorted.length > MAX_CHANGED_PATHS };
}
