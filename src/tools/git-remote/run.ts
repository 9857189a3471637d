// One git process for a remote, supervised like shell.exec's commands without a sandbox: its own
// process group (git forks remote-http, pack-objects, index-pack), a wall deadline, SIGTERM then
// SIGKILL of the whole group on abort, and no return before every process of it is gone.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryWriter, supervise, type ExitReason } from '../../sandbox/index.js';

const OUTPUT_CAP = 1024 * 1024;
const GRACE_MS = 500;

export interface GitRun {
  readonly exit_code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly reason: ExitReason;
  readonly stdout: string;
  readonly stderr: string;
  readonly duration_ms: number;
}

export async function runGitProcess(o: {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly secrets: readonly string[];
  /** Awaited right before the spawn (markSent); never called when the signal aborted first. */
  readonly onSpawn?: () => Promise<void>;
}): Promise<GitRun> {
  const full: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
  const r = await supervise({
    file: 'git',
    args: o.args,
    cwd: o.cwd,
    user: null,
    env: o.env,
    stdin: null,
    mode: 'process',
    timeoutMs: o.timeoutMs,
    idleTimeoutMs: null,
    graceMs: GRACE_MS,
    outputCapBytes: OUTPUT_CAP,
    previewHeadBytes: 64 * 1024,
    previewTailBytes: 0,
    secrets: o.secrets,
    cgroups: null,
    signal: o.signal,
    openArtifact: (s) => memoryWriter(full[s], 'git-output'),
    onChunk: undefined,
    joinInit: null,
    onSpawn: o.onSpawn,
  });
  const text = (s: 'stdout' | 'stderr') => (full[s].length ? Buffer.concat(full[s]).toString('utf8') : r[s].preview);
  return { exit_code: r.exit_code, signal: r.signal, reason: r.reason, stdout: text('stdout'), stderr: text('stderr').slice(0, 4096), duration_ms: r.duration_ms };
}

/**
 * A bare repository made for one call: its config is git's defaults and nothing else, so no
 * `url.*.insteadOf`, proxy, credential helper or hook that the workspace's .git/config (which an
 * agent can write) names applies to a connection. Objects come from the workspace
 * (GIT_OBJECT_DIRECTORY), so a push sends them and a fetch stores into the workspace.
 */
export function scratchRepository(objectFormat: 'sha1' | 'sha256'): { dir: string; home: string; dispose(): void } {
  const base = mkdtempSync(join(tmpdir(), 'tg-git-remote-'));
  const dir = join(base, 'repo.git');
  const home = join(base, 'home');
  mkdirSync(join(dir, 'objects'), { recursive: true });
  mkdirSync(join(dir, 'refs', 'heads'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  const sha256 = objectFormat === 'sha256';
  const core = `[core]\n\trepositoryformatversion = ${sha256 ? 1 : 0}\n\tbare = true\n`;
  writeFileSync(join(dir, 'config'), sha256 ? `${core}[extensions]\n\tobjectformat = sha256\n` : core);
  return { dir, home, dispose: () => rmSync(base, { recursive: true, force: true }) };
}
