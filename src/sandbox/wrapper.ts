import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { BlockPipe } from './block-fd.js';
import { fileSizeBlocks, type ResourceLimits } from './limits.js';

const O_CLOEXEC = 0o2000000;

/**
 * Descriptors above 2 that this process inherited without close-on-exec (Node opens its own
 * with it). They would pass into every child, so the wrapper closes them before bubblewrap.
 */
export function inheritedFds(): number[] {
  const out: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return out;
  }
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const m = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (m && (parseInt(m[1] as string, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      // closed while we looked (the readdir's own fd)
    }
  }
  return out.sort((a, b) => a - b);
}

/** The shell that joins the cgroups, sets rlimits and closes stray fds, then execs bubblewrap. */
export interface WrapperShell {
  readonly path: string;
  /**
   * bash needs POSIX mode for `ulimit -f` to count 512-byte blocks, as dash does, and --norc:
   * on a socket stdin it would otherwise source ~/.bashrc, outside the sandbox.
   */
  readonly args: readonly string[];
  /** bash spells the process limit `-u`; dash and busybox `-p`. */
  readonly nprocFlag: '-u' | '-p';
  /** dash cannot name a descriptor above 9 in a redirection. */
  readonly closesHighFds: boolean;
}

export function chooseShell(strayFds: readonly number[]): WrapperShell | null {
  const sh = existsSync('/bin/sh') ? realpathSync('/bin/sh') : null;
  const needHigh = strayFds.some((fd) => fd > 9);
  const kind = sh ? basename(sh) : '';
  if (sh && (!needHigh || kind === 'bash')) {
    return kind === 'bash' ? { path: sh, args: ['--posix', '--norc', '--noprofile'], nprocFlag: '-u', closesHighFds: true } : { path: sh, args: [], nprocFlag: '-p', closesHighFds: false };
  }
  for (const bash of ['/bin/bash', '/usr/bin/bash']) {
    if (existsSync(bash)) return { path: bash, args: ['--posix', '--norc', '--noprofile'], nprocFlag: '-u', closesHighFds: true };
  }
  return sh ? { path: sh, args: [], nprocFlag: '-p', closesHighFds: false } : null;
}

/** Current hard limits of this process; a child cannot be given more. */
export function hardLimits(): Partial<Record<'cpu' | 'as' | 'fsize' | 'nofile' | 'nproc', number>> {
  const out: Partial<Record<'cpu' | 'as' | 'fsize' | 'nofile' | 'nproc', number>> = {};
  let text = '';
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return out;
  }
  const rows: [RegExp, 'cpu' | 'as' | 'fsize' | 'nofile' | 'nproc'][] = [
    [/^Max cpu time\s+\S+\s+(\S+)/m, 'cpu'],
    [/^Max address space\s+\S+\s+(\S+)/m, 'as'],
    [/^Max file size\s+\S+\s+(\S+)/m, 'fsize'],
    [/^Max open files\s+\S+\s+(\S+)/m, 'nofile'],
    [/^Max processes\s+\S+\s+(\S+)/m, 'nproc'],
  ];
  for (const [re, key] of rows) {
    const m = re.exec(text);
    if (m && m[1] !== 'unlimited') out[key] = Number(m[1]);
  }
  return out;
}

/**
 * The wrapper script. Positional arguments: the number of cgroup.procs files, the files, then
 * the bubblewrap command line. Exit 125 before bubblewrap starts means the sandbox could not
 * be set up (no info from bubblewrap tells the supervisor the same).
 */
export function wrapperScript(
  shell: WrapperShell,
  limits: ResourceLimits,
  strayFds: readonly number[],
  o: {
    keepShlvl: boolean;
    nproc: boolean;
    /** Highest fd that is the supervisor's own pipe. */
    lastOwnFd: number;
    /** bubblewrap's block fd when it is a pipe, reopened read-write (block-fd.ts). */
    reopenBlockFd?: number | null;
  },
): string {
  const lines = [
    // bash exports SHLVL on its own; only named variables may reach the command.
    ...(o.keepShlvl ? [] : ['unset SHLVL']),
    'n=$1; shift',
    'while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done',
    `ulimit -t ${limits.cpu_seconds} || exit 125`,
    `ulimit -v ${Math.floor(limits.address_space_bytes / 1024)} || exit 125`,
    `ulimit -f ${fileSizeBlocks(limits.file_size_bytes)} || exit 125`,
    `ulimit -n ${limits.open_files} || exit 125`,
    ...(o.nproc ? [`ulimit ${shell.nprocFlag} ${limits.processes} || exit 125`] : []),
  ];
  const closable = strayFds.filter((fd) => fd > o.lastOwnFd && (fd <= 9 || shell.closesHighFds));
  if (closable.length > 0) lines.push(`exec ${closable.map((fd) => `${fd}>&-`).join(' ')}`);
  if (o.reopenBlockFd != null) lines.push(BlockPipe.reopenLine(o.reopenBlockFd));
  lines.push('exec "$@"');
  return lines.join('\n');
}
