// git inside a sandbox, for reads of a work tree whose own config (fsmonitor, filters) may name
// programs: read-only, without network, so that nothing the repository says runs on the host.
// shell.exec's status before and after a command uses it; so can any tool that reads git status.
import type { Digest } from '../protocol/index.js';
import type { ArtifactWriter } from '../registry/index.js';
import { MAX_STATUS_BYTES, type ConfinedGit } from '../resources/index.js';
import type { Sandbox } from './sandbox.js';

export const GIT_TIMEOUT_MS = 15_000;

/**
 * Collects a stream in memory instead of an artifact (bounded by the caller's output cap): for
 * Toolgate's own git runs, whose output is parsed, never stored.
 */
export function memoryWriter(into: Buffer[], role: string): ArtifactWriter {
  let bytes = 0;
  return {
    write: (c) => {
      into.push(Buffer.from(c));
      bytes += c.length;
    },
    close: () => ({ digest: 'sha256:' as Digest, bytes, media_type: 'application/octet-stream', role }),
    abort: () => {},
  };
}

/**
 * A runner for src/resources/git that runs each fixed argv in `sandbox`; stdout, or null unless it
 * exited 0. With `hold`, each run's sandbox is set up at once and git starts only when `hold`
 * resolves (held on the block fd, as a command is until its intent is durable): the setup can
 * overlap other work. `timeoutMs` (default GIT_TIMEOUT_MS) bounds the wait for `hold`, and git
 * again from the release.
 */
export function gitInSandbox(sandbox: Sandbox, o: { readonly hold?: () => Promise<void>; readonly timeoutMs?: number } = {}): ConfinedGit {
  return async (argv, env, cwd, signal) => {
    const full: Buffer[] = [];
    const r = await sandbox.run({
      argv,
      cwd,
      env,
      timeoutMs: o.timeoutMs ?? GIT_TIMEOUT_MS,
      internal: true, // a fixed argv on a read-only workspace: no secret scan needed
      workspaceWritable: false,
      limits: { output_bytes: MAX_STATUS_BYTES },
      signal,
      openArtifact: () => memoryWriter(full, 'git-status'),
      ...(o.hold ? { onSpawn: o.hold } : {}),
    });
    if (r.reason !== 'exited' || r.exit_code !== 0) return null;
    return full.length ? Buffer.concat(full).toString('utf8') : r.stdout.preview;
  };
}
