import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
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

/**
 * A probe kept from an earlier process, valid while the resolved file is the same inode with the
 * same size, mtime and ctime (nanoseconds): any write or replacement changes the ctime, which no
 * one can set back, so the version it printed and its sha256 still hold.
 */
interface KeptProbe extends HostTool {
  readonly file: string;
}

function fileKey(st: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

async function probe(name: string, commands: readonly string[], path: string, kept: ReadonlyMap<string, KeptProbe>): Promise<{ tool: HostTool; file: string | null }> {
  const found = commands.map((c) => resolveCommand(c, tmpdir(), path)).find((p) => p !== null) ?? null;
  if (found === null) return { tool: { name, path: null, resolved: null, version: null, sha256: null }, file: null };
  const resolved = await realpath(found).catch(() => null);
  const file = resolved === null ? null : await stat(resolved, { bigint: true }).then(fileKey, () => null);
  const k = kept.get(name);
  if (k !== undefined && file !== null && k.file === file && k.path === found && k.resolved === resolved) {
    return { tool: { name, path: found, resolved, version: k.version, sha256: k.sha256 }, file };
  }
  const [version, sha256] = await Promise.all([versionOf(found), resolved === null ? null : sha256OfFile(resolved).catch(() => null)]);
  return { tool: { name, path: found, resolved, version, sha256 }, file };
}

async function readKept(cacheFile: string | undefined): Promise<Map<string, KeptProbe>> {
  if (cacheFile === undefined) return new Map();
  try {
    const list = JSON.parse(await readFile(cacheFile, 'utf8')) as KeptProbe[];
    return new Map(list.filter((k) => typeof k?.name === 'string' && typeof k.file === 'string').map((k) => [k.name, k]));
  } catch {
    return new Map(); // none yet, or torn: probe afresh
  }
}

/** Replaces the cache whole (a cache: no fsync; a torn file is read as none). */
async function writeKept(cacheFile: string, list: readonly KeptProbe[]): Promise<void> {
  const tmp = join(dirname(cacheFile), `.${basename(cacheFile)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, `${JSON.stringify(list)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(tmp, cacheFile);
  } catch {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * The host tools the runtime uses (docs/release.md#host-tools), probed in parallel: `toolgate
 * doctor --json` reports them and the first receipt of each task records them, so a receipt
 * says which bubblewrap confined a command and which ripgrep searched.
 *
 * With `cacheFile` (the runtime's `<state dir>/host-tools.json`), a tool whose resolved file is
 * unchanged since an earlier process probed it is not run again: five `--version` runs forked from
 * the runtime cost about 270 ms of the event loop under load, at every `toolgate call` and at the
 * first call of every `toolgate serve`. Only complete probes are kept. A launcher script's target
 * (Debian's chromium execs /usr/lib/chromium/chromium) is not part of the key: its sha256 is the
 * launcher's too.
 */
export async function probeHostTools(path: string = process.env['PATH'] ?? '/usr/bin:/bin', cacheFile?: string): Promise<HostTool[]> {
  const kept = await readKept(cacheFile);
  const probed = await Promise.all(HOST_TOOLS.map((t) => probe(t.name, t.commands, path, kept)));
  if (cacheFile !== undefined) {
    const keep = probed.flatMap(({ tool, file }) => (file !== null && tool.version !== null && tool.sha256 !== null ? [{ ...tool, file }] : []));
    const same = keep.length === kept.size && keep.every((k) => JSON.stringify(kept.get(k.name)) === JSON.stringify(k));
    if (!same) await writeKept(cacheFile, keep);
  }
  return probed.map((p) => p.tool);
}

/**
 * The probe, once per process and PATH: the host's binaries are a fact of the machine shared by
 * every runtime in the process, and a first receipt should not wait for five `--version` runs
 * each time a host opens a runtime. A binary replaced while the process runs is seen by doctor.
 */
const probedOnce = new Map<string, Promise<HostTool[]>>();

export function hostToolsOnce(path: string = process.env['PATH'] ?? '/usr/bin:/bin', cacheFile?: string): Promise<HostTool[]> {
  const key = `${path}\u0000${cacheFile ?? ''}`;
  let p = probedOnce.get(key);
  if (p === undefined) {
    p = probeHostTools(path, cacheFile);
    probedOnce.set(key, p);
  }
  return p;
}
