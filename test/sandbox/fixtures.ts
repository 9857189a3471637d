import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A fresh workspace directory (real path) and its removal. */
export function tempWorkspace(prefix = 'tg-shell-ws-'): { dir: string; remove: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function newMarker(): string {
  return `tgmark${randomBytes(8).toString('hex')}`;
}

/**
 * Host pids whose command line or environment holds `marker`: found by reading /proc, not by
 * asking the sandbox. Our own process is excluded.
 */
export function processesWithMarker(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${name}/${file}`, 'latin1').includes(marker)) {
          const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
          const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
          if (state !== 'Z') out.push(Number(name));
          break;
        }
      } catch {
        // gone while we looked
      }
    }
  }
  return out;
}

export async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const BASE_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin' } as const;

/** `pid: command line` of each process holding the marker, for a failure message. */
export function describeMarked(marker: string): string {
  return processesWithMarker(marker)
    .map((pid) => {
      try {
        return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').slice(0, 120)}`;
      } catch {
        return `${pid}: (gone)`;
      }
    })
    .join('; ');
}

/** Host pids of `sleep` processes carrying the marker. */
export function sleepersWithMarker(marker: string): number[] {
  return processesWithMarker(marker).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('sleep\0');
    } catch {
      return false;
    }
  });
}
