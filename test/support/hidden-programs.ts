// Runs a command as a fresh machine would see it: the named programs absent. In a private mount
// namespace, each directory that holds one of them is covered by an overlay whose upper layer
// has a whiteout (a 0:0 character device) for it, so the program is gone for every lookup,
// PATH or absolute, and nothing on the host changes. Needs root (the tests run as root in CI).
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { shellQuote } from '../../src/sandbox/index.js';

/** Every directory on the usual lookup paths where `program` is, as real paths. */
function placesOf(program: string): string[] {
  const dirs = new Set<string>();
  for (const d of ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin', ...(process.env['PATH'] ?? '').split(':')]) {
    if (!d) continue;
    try {
      dirs.add(dirname(realpathSync(join(d, program))));
    } catch {
      // not there
    }
  }
  return [...dirs];
}

/**
 * `[command, args]` for spawn: `argv` run with `programs` hidden. `scratch` is a directory the
 * caller removes afterwards (it holds the overlays' upper and work layers).
 */
export function withoutPrograms(programs: readonly string[], argv: readonly string[], scratch: string): [string, string[]] {
  const byDir = new Map<string, string[]>();
  for (const p of programs) for (const d of placesOf(p)) byDir.set(d, [...(byDir.get(d) ?? []), p]);
  const mounts: string[] = [];
  let i = 0;
  for (const [dir, names] of byDir) {
    const up = join(scratch, `up${i}`);
    const work = join(scratch, `work${i++}`);
    mkdirSync(up, { recursive: true });
    mkdirSync(work, { recursive: true });
    for (const n of names) execFileSync('mknod', [join(up, basename(n)), 'c', '0', '0']);
    mounts.push(`mount -t overlay overlay -o ${shellQuote(`lowerdir=${dir},upperdir=${up},workdir=${work}`)} ${shellQuote(dir)}`);
  }
  const script = [...mounts, `exec ${argv.map(shellQuote).join(' ')}`].join(' && ');
  return ['unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script]];
}
