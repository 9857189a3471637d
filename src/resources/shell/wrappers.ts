// Programs that run another program given in their arguments, and how to find it. Each entry
// skips the wrapper's own options (those that take a value consume it) and says where the
// wrapped command starts. A wrapper that can run a command we cannot find statically is named
// in UNSUPPORTED_WRAPPERS: the action reports it as unresolved rather than guessing.

export interface Unwrapped {
  /** The argv the wrapper runs; empty when it runs none (e.g. `env` alone prints). */
  readonly inner: readonly string[];
  /** The inner argv's arguments come from elsewhere too (xargs reads them from stdin). */
  readonly argsFromStdin?: boolean;
}

interface OptionSpec {
  /** Short options that take a value (as the next word, or joined: `-n5`). */
  readonly withValue: string;
  /** Long options that take a value (as `--opt=v` or the next word). */
  readonly longWithValue?: readonly string[];
  /** Stop at the first word that is not an option (POSIX); false: GNU-style permutation is not assumed either. */
  readonly positionalBefore?: number;
}

/** Skips options; returns the index of the first operand. */
function skipOptions(argv: readonly string[], from: number, spec: OptionSpec): number {
  let i = from;
  while (i < argv.length) {
    const a = argv[i] as string;
    if (a === '--') return i + 1;
    if (!a.startsWith('-') || a === '-') return i;
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=')[0] as string;
      i += spec.longWithValue?.includes(name) && !a.includes('=') ? 2 : 1;
      continue;
    }
    // A cluster of short flags; the first one that takes a value takes the rest of the word or the next word.
    let j = 1;
    let consumedNext = false;
    for (; j < a.length; j++) {
      if (spec.withValue.includes(a[j] as string)) {
        consumedNext = j === a.length - 1;
        break;
      }
    }
    i += consumedNext ? 2 : 1;
  }
  return i;
}

const after = (argv: readonly string[], spec: OptionSpec, skipOperands = 0): Unwrapped => {
  const start = skipOptions(argv, 1, spec) + skipOperands;
  return { inner: argv.slice(start) };
};

type Unwrapper = (argv: readonly string[]) => Unwrapped | null;

function env(argv: readonly string[]): Unwrapped | null {
  let i = skipOptions(argv, 1, { withValue: 'uCS', longWithValue: ['unset', 'chdir', 'split-string', 'default-signal', 'ignore-signal', 'block-signal'] });
  // -S splits a string into words: a second parse we do not attempt.
  if (argv.slice(1, i).some((a) => /^-[^-]*S/.test(a) || a.startsWith('--split-string'))) return null;
  while (i < argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i] as string)) i++;
  return { inner: argv.slice(i) };
}

function timeout(argv: readonly string[]): Unwrapped {
  return after(argv, { withValue: 'sk', longWithValue: ['signal', 'kill-after'] }, 1);
}

function xargs(argv: readonly string[]): Unwrapped {
  const start = skipOptions(argv, 1, { withValue: 'adEILnPs', longWithValue: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'] });
  const inner = argv.slice(start);
  return { inner: inner.length ? inner : ['echo'], argsFromStdin: true };
}

function sudo(argv: readonly string[]): Unwrapped | null {
  const start = skipOptions(argv, 1, { withValue: 'ugCDhprtTU', longWithValue: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'] });
  const opts = argv.slice(1, start).join(' ');
  // -e edits files (sudoedit); -s / -i with no command start a shell.
  if (/(^|\s)-[^-\s]*e/.test(opts) || opts.includes('--edit')) return null;
  const inner = argv.slice(start);
  if (inner.length === 0 && (/(^|\s)-[^-\s]*[si]/.test(opts) || /--(shell|login)/.test(opts))) return { inner: ['sh'] };
  return { inner };
}

function nice(argv: readonly string[]): Unwrapped {
  let i = 1;
  if (/^-\d+$/.test(argv[1] ?? '')) i = 2;
  return { inner: argv.slice(skipOptions(argv, i, { withValue: 'n', longWithValue: ['adjustment'] })) };
}

function taskset(argv: readonly string[]): Unwrapped {
  const start = skipOptions(argv, 1, { withValue: '' });
  if (argv.slice(1, start).some((a) => /^-[^-]*p/.test(a) || a === '--pid')) return { inner: [] };
  return { inner: argv.slice(start + 1) };
}

function flock(argv: readonly string[]): Unwrapped | null {
  const start = skipOptions(argv, 1, { withValue: 'wEc', longWithValue: ['timeout', 'conflict-exit-code', 'command'] });
  const opts = argv.slice(1, start);
  const c = opts.findIndex((a) => a === '-c' || a === '--command');
  if (c !== -1) return { inner: ['sh', '-c', argv[1 + c + 1] ?? ''] };
  return { inner: argv.slice(start + 1) };
}

function chroot(argv: readonly string[]): Unwrapped {
  return after(argv, { withValue: '', longWithValue: ['groups', 'userspec'] }, 1);
}

function su(argv: readonly string[]): Unwrapped | null {
  const i = argv.findIndex((a) => a === '-c' || a === '--command');
  if (i === -1) return { inner: ['sh'] };
  return { inner: ['sh', '-c', argv[i + 1] ?? ''] };
}

/** `watch CMD…` joins its words and runs them with `sh -c`. */
function watch(argv: readonly string[]): Unwrapped {
  const start = skipOptions(argv, 1, { withValue: 'nd', longWithValue: ['interval', 'differences'] });
  return { inner: ['sh', '-c', argv.slice(start).join(' ')] };
}

export const WRAPPERS: ReadonlyMap<string, Unwrapper> = new Map<string, Unwrapper>([
  ['env', env],
  ['command', (a) => (a.slice(1).some((x) => /^-[^-]*[vV]/.test(x)) ? { inner: [] } : after(a, { withValue: '' }))],
  ['exec', (a) => after(a, { withValue: 'a' })],
  ['builtin', (a) => ({ inner: a.slice(1) })],
  ['nice', nice],
  ['nohup', (a) => after(a, { withValue: '' })],
  ['setsid', (a) => after(a, { withValue: '' })],
  ['coproc', (a) => ({ inner: a.slice(1) })],
  ['time', (a) => after(a, { withValue: 'fo', longWithValue: ['format', 'output'] })],
  ['timeout', timeout],
  ['stdbuf', (a) => after(a, { withValue: 'ioe', longWithValue: ['input', 'output', 'error'] })],
  ['ionice', (a) => after(a, { withValue: 'cnp', longWithValue: ['class', 'classdata', 'pid'] })],
  ['chrt', (a) => after(a, { withValue: 'T', longWithValue: ['sched-runtime', 'sched-period', 'sched-deadline'] }, 1)],
  ['taskset', taskset],
  ['flock', flock],
  ['chroot', chroot],
  ['xargs', xargs],
  ['sudo', sudo],
  ['doas', (a) => after(a, { withValue: 'uC' })],
  ['su', su],
  ['watch', watch],
]);

/** Programs that run a command we do not unwrap: reported as unresolved, so a program policy fails closed. */
export const UNSUPPORTED_WRAPPERS: ReadonlySet<string> = new Set([
  'parallel', 'systemd-run', 'script', 'strace', 'ltrace', 'gdb', 'valgrind', 'firejail', 'bwrap', 'unshare', 'nsenter',
  'busybox', 'toybox', 'proot', 'fakeroot', 'faketime', 'torsocks', 'proxychains', 'proxychains4', 'dbus-launch',
  'xvfb-run', 'expect', 'runuser', 'pkexec', 'sg', 'newgrp', 'tmux', 'screen', 'unbuffer', 'catchsegv', 'entr', 'inotifywait',
]);

/** Shells: `-c SCRIPT` is parsed again (bounded depth); a file argument or stdin is code we cannot see. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'rbash']);

/** Interpreters and the options that take code on the command line. */
export const INTERPRETERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['python', ['-c']],
  ['node', ['-e', '--eval', '-p', '--print']],
  ['nodejs', ['-e', '--eval', '-p', '--print']],
  ['deno', ['eval']],
  ['bun', ['-e', '--eval', '-p', '--print']],
  ['perl', ['-e', '-E']],
  ['ruby', ['-e']],
  ['php', ['-r']],
  ['lua', ['-e']],
  ['Rscript', ['-e']],
  ['tclsh', []],
  ['awk', []],
  ['gawk', []],
  ['mawk', []],
  ['nawk', []],
  ['osascript', ['-e']],
  ['pwsh', ['-c', '-Command']],
]);

/** `python3.11` → `python`; `nodejs` stays. */
export function interpreterFamily(name: string): string | null {
  if (INTERPRETERS.has(name) || SHELLS.has(name)) return name;
  const m = /^(python|perl|ruby|php|lua)[0-9.]*$/.exec(name);
  return m ? (m[1] as string) : null;
}
