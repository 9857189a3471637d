// The ground the kit tries a server on: a root the server is given, and beside it what no call
// may reach. Each outside file holds a canary (a random token); an answer that carries one, or a
// file that appears or changes outside the root, is an escape.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Fixture {
  readonly base: string;
  /** The directory the server serves. */
  readonly root: string;
  readonly outside: string;
  /** A sibling whose name starts with the root's (`root-evil`): the classic prefix check fails here. */
  readonly sibling: string;
  /** Tokens that must never appear in an answer. */
  readonly canaries: { readonly outside: string; readonly sibling: string; readonly hard: string; readonly secret: string };
  /** A snapshot of everything outside the root (names, sizes, contents' digests by bytes). */
  outsideState(): string;
  dispose(): void;
}

const BIG_BYTES = 20 * 1024 * 1024;
const SPARSE_BYTES = 2 ** 40;

export function makeFixture(): Fixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-conformance-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  const sibling = join(base, 'root-evil');
  const token = (what: string) => `CANARY_${what}_${randomBytes(8).toString('hex')}`;
  const canaries = { outside: token('OUTSIDE'), sibling: token('SIBLING'), hard: token('HARDLINK'), secret: token('SECRET') };
  for (const d of [root, outside, sibling, join(root, 'sub'), join(root, 'race')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${canaries.outside}\n`);
  writeFileSync(join(outside, 'hard-target.txt'), `${canaries.hard}\n`);
  writeFileSync(join(sibling, 'secret.txt'), `${canaries.sibling}\n`);
  writeFileSync(join(root, 'inside.txt'), 'inside\n');
  writeFileSync(join(root, 'sub', 'a.txt'), 'a\n');
  writeFileSync(join(root, 'dup.txt'), 'x\nmiddle\nx\n');
  writeFileSync(join(root, 'overlap.txt'), 'abcdef\n');
  writeFileSync(join(root, '.env'), `API_TOKEN=${canaries.secret}\n`);
  writeFileSync(join(root, 'race', 'f.txt'), 'race-inside\n');
  symlinkSync(outside, join(root, 'link-out'));
  symlinkSync(join(outside, 'race-target'), join(root, 'race-alt'));
  mkdirSync(join(outside, 'race-target'));
  writeFileSync(join(outside, 'race-target', 'f.txt'), `${canaries.outside}\n`);
  symlinkSync(join(root, 'inside.txt'), join(root, 'link-in'));
  symlinkSync(join(outside, 'created-through-dangling.txt'), join(root, 'dangling'));
  linkSync(join(outside, 'hard-target.txt'), join(root, 'hard'));
  execFileSync('mkfifo', [join(root, 'fifo')]);
  writeFileSync(join(root, 'sparse.bin'), '');
  truncateSync(join(root, 'sparse.bin'), SPARSE_BYTES);
  writeFileSync(join(root, 'big.txt'), Buffer.alloc(BIG_BYTES, 'y\n'));

  const outsideState = (): string => {
    const lines: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const p = join(dir, name);
        const st = statSync(p, { throwIfNoEntry: false });
        if (!st) continue;
        if (st.isDirectory()) walk(p);
        else lines.push(`${p} ${st.size} ${st.isFile() ? readFileSync(p).toString('base64') : ''}`);
      }
    };
    walk(outside);
    walk(sibling);
    return lines.join('\n');
  };
  return { base, root, outside, sibling, canaries, outsideState, dispose: () => rmSync(base, { recursive: true, force: true }) };
}
