// How many open files one ripgrep run may be handed. The descriptors are opened here and held
// (in this process, then in the child) only while the child starts, so one run's worth is held
// at a time by this process; the child needs room for its own opens on top.
import { readFileSync } from 'node:fs';

/** More than this per run buys nothing: ripgrep's start is already amortized. */
export const MAX_FDS_PER_RUN = 8192;
const MIN_FDS_PER_RUN = 64;
/** Left for everything else this process (the runtime, SQLite, other calls) and the child hold. */
const RESERVED_FDS = 256;

/** The soft RLIMIT_NOFILE of this process; 1024 (the usual default) when it cannot be read. */
export function openFilesLimit(limitsText?: string): number {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return 1024;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return 1024;
  return soft === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(soft) || 1024;
}

/** Files one ripgrep run may be handed under a limit of `limit` open files. */
export function fdsPerRun(limit = openFilesLimit()): number {
  return Math.max(MIN_FDS_PER_RUN, Math.min(MAX_FDS_PER_RUN, Math.floor(limit / 2) - RESERVED_FDS));
}
