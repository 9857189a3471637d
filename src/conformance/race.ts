// A directory swapped for a link to the outside while reads and writes go on: a helper swaps
// `race` (a real directory) and `race-alt` (a link to a directory outside) with
// renameat2(RENAME_EXCHANGE) as fast as it can, for a bounded time. A server that checks a path
// and then opens it by name reads or writes outside sooner or later. The helper is a few lines
// of C compiled with the machine's cc (Node has no renameat2); without a compiler the family is
// reported as not run.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attempt, pathArg, type AttemptResult, type KitContext } from './attempt.js';

const SWAP_C = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  time_t until = time(NULL) + atoi(argv[3]);
  unsigned long n = 0;
  while (time(NULL) < until) {
    if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) { perror("renameat2"); return 1; }
    n++;
  }
  /* Leave the real directory where it was. */
  if (n % 2 == 1) renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
  printf("%lu\\n", n);
  return 0;
}
`;

const SWAP_SECONDS = 8;
const READS = 60;
const WRITES = 20;

export async function renameRace(k: KitContext): Promise<AttemptResult[]> {
  const f = 'directory swapped for a link (RENAME_EXCHANGE)';
  const src = join(k.fx.base, 'swap.c');
  const bin = join(k.fx.base, 'swap');
  writeFileSync(src, SWAP_C);
  const cc = spawnSync('cc', ['-O2', '-o', bin, src], { encoding: 'utf8' });
  if (cc.status !== 0) return [{ family: f, name: 'reads and writes during the swap', outcome: 'not_run', detail: `no C compiler to build the swap helper (${(cc.error?.message ?? cc.stderr).trim().slice(0, 120)})` }];
  const swapper = spawn(bin, [join(k.fx.root, 'race'), join(k.fx.root, 'race-alt'), String(SWAP_SECONDS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const done = new Promise<void>((resolve) => swapper.once('exit', () => resolve()));
  const results: AttemptResult[] = [];
  try {
    const until = Date.now() + SWAP_SECONDS * 1_000 - 500;
    let reads = 0;
    let writes = 0;
    while (Date.now() < until && (reads < READS || writes < WRITES)) {
      if (reads < READS) {
        results.push(await attempt(k, f, `read race/f.txt #${++reads}`, 'read', { path: pathArg(k, 'race/f.txt') }));
      }
      if (writes < WRITES) {
        results.push(await attempt(k, f, `write race/w.txt #${++writes}`, 'write', { path: pathArg(k, 'race/w.txt'), content: 'w\n' }));
      }
    }
  } finally {
    swapper.kill('SIGKILL');
    await done;
  }
  return results;
}
