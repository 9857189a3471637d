// The `git status` around a command runs inside the command's sandbox: read-only, without
// network, so that the repository's own config (fsmonitor, filters) cannot run programs on the host.
import type { Digest } from '../../protocol/index.js';
import type { ArtifactWriter } from '../../registry/index.js';
import { MAX_STATUS_BYTES, readGitStatus, type ConfinedGit, type StatusSnapshot } from '../../resources/index.js';
import type { Sandbox } from '../../sandbox/index.js';

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

function inSandbox(sandbox: Sandbox): ConfinedGit {
  return async (argv, env, cwd, signal) => {
    const full: Buffer[] = [];
    const r = await sandbox.run({
      argv,
      cwd,
      env,
      timeoutMs: 15_000,
      internal: true, // a fixed argv on a read-only workspace: no secret scan needed
      workspaceWritable: false,
      limits: { output_bytes: MAX_STATUS_BYTES },
      signal,
      openArtifact: () => memoryWriter(full),
    });
    if (r.reason !== 'exited' || r.exit_code !== 0) return null;
    return full.length ? Buffer.concat(full).toString('utf8') : r.stdout.preview;
  };
}

/** The work tree's status, read inside the sandbox; null outside a git work tree or when git fails. */
export function gitStatus(sandbox: Sandbox, root: string, signal: AbortSignal): Promise<StatusSnapshot | null> {
  return readGitStatus(inSandbox(sandbox), root, signal);
}
