import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { HostToolRecord } from '../protocol/index.js';
import { resolveCommand } from '../sandbox/index.js';
import { sha256OfFile } from './files.js';

/**
 * A program on the host the runtime runs: where it resolved, what it says its version is, what
 * its bytes hash to (a launcher script's own bytes when the tool is one, as Debian's chromium).
 */
export type HostTool = HostToolRecord;

/** Each tool and the names it may go by on PATH, first found wins. */
export const HOST_TOOLS: readonly { readonly name: string; readonly commands: readonly string[] }[] = [
  { name: 'bwrap', commands: ['bwrap'] },
  { name: 'rg', commands: ['rg'] },
  { name: 'git', commands: ['git'] },
  { name: 'script', commands: ['script'] },
  { name: 'chromium', commands: ['chromium', 'chromium-browser', 'google-chrome'] },
];

/** A probe that takes longer than this is recorded without a version (a wedged binary must not hold a call). */
const VERSION_TIMEOUT_MS = 5_000;

function versionOf(file: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { timeout: VERSION_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C' } }, (err, stdout) => {
      const line = stdout.split('\n').find((l) => l.trim() !== '')?.trim() ?? null;
      resolve(err && line === null ? null : line);
    });
  });
}

async function probe(name: string, commands: readonly string[], path: string): Promise<HostTool> {
  const found = commands.map((c) => resolveCommand(c, tmpdir(), path)).find((p) => p !== null) ?? null;
  if (found === null) return { name, path: null, resolved: null, version: null, sha256: null };
  const resolved = await realpath(found).catch(() => null);
  const [version, sha256] = await Promise.all([versionOf(found), resolved === null ? null : sha256OfFile(resolved).catch(() => null)]);
  return { name, path: found, resolved, version, sha256 };
}

/**
 * The host tools the runtime uses (docs/release.md#host-tools), probed in parallel: `toolgate
 * doctor --json` reports them and the first receipt of each task records them, so a receipt
 * says which bubblewrap confined a command and which ripgrep searched.
 */
export function probeHostTools(path: string = process.env['PATH'] ?? '/usr/bin:/bin'): Promise<HostTool[]> {
  return Promise.all(HOST_TOOLS.map((t) => probe(t.name, t.commands, path)));
}

/**
 * The probe, once per process and PATH: the host's binaries are a fact of the machine shared by
 * every runtime in the process, and a first receipt should not wait for five `--version` runs
 * each time a host opens a runtime. A binary replaced while the process runs is seen by doctor.
 */
const probed = new Map<string, Promise<HostTool[]>>();

export function hostToolsOnce(path: string = process.env['PATH'] ?? '/usr/bin:/bin'): Promise<HostTool[]> {
  let p = probed.get(path);
  if (p === undefined) {
    p = probeHostTools(path);
    probed.set(path, p);
  }
  return p;
}
