// The ground the kit tries a server on: a root the server is given, and beside it what no call
// may reach. Each outside file holds a canary (a random token); an answer that carries one, or a
// file that appears or changes outside the root, is an escape.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { StartupError } from '../protocol/index.js';

export interface Fixture {
  readonly base: string;
  /** The names of `outside` and `sibling` in `base` (what `../NAME/…` reaches from the root). */
  readonly outsideName: string;
  readonly siblingName: string;
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
/** Numbered lines (`line N`) the kit pages through. */
export const PAGED_LINES = 200_000;
/** Files in paged/many (listed in pages) and matches in paged/found (searched in pages). */
export const PAGED_ENTRIES = 45;
export const PAGED_MATCHES = 12;
/** The entries the kit makes in the root: a given root must not hold any of them already. */
const FIXTURE_ENTRIES = ['sub', 'race', 'race-alt', 'inside.txt', 'dup.txt', 'overlap.txt', '.env', 'link-out', 'link-in', 'dangling', 'hard', 'fifo', 'sparse.bin', 'big.txt', 'pages.txt'];
/** Files the race renames and deletes, one attempt each. */
export const RACE_ENTRIES = 15;
const SPARSE_BYTES = 2 ** 40;

/**
 * The ground in a fresh temporary folder, or around `given`: the root a running server already
 * serves (a URL target). Then `outside` and the sibling are made beside it under names derived
 * from its own, and refused if something by those names is there already.
 */
export function makeFixture(given?: string): Fixture {
  const root = given === undefined ? null : realpathSync(given);
  const base = root === null ? realpathSync(mkdtempSync(join(tmpdir(), 'tg-conformance-'))) : dirname(root);
  const rootDir = root ?? join(base, 'root');
  const outsideName = root === null ? 'outside' : `${basename(root)}-outside`;
  const siblingName = `${basename(rootDir)}-evil`;
  const outside = join(base, outsideName);
  const sibling = join(base, siblingName);
  if (root !== null) {
    for (const p of [outside, sibling]) if (existsSync(p)) throw new StartupError('usage', `${p} exists: the kit makes it beside the root and removes it after`);
    if (readdirSync(root).some((n) => FIXTURE_ENTRIES.includes(n))) throw new StartupError('usage', `${root} already holds entries the kit makes (${FIXTURE_ENTRIES.join(', ')})`);
  }
  // What the root held before: everything else in it is the kit's (or its attempts'), removed after.
  const before = new Set(root === null ? [] : readdirSync(root));
  const token = (what: string) => `CANARY_${what}_${randomBytes(8).toString('hex')}`;
  const canaries = { outside: token('OUTSIDE'), sibling: token('SIBLING'), hard: token('HARDLINK'), secret: token('SECRET') };
  for (const d of [rootDir, outside, sibling, join(rootDir, 'sub'), join(rootDir, 'race')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${canaries.outside}\n`);
  writeFileSync(join(outside, 'hard-target.txt'), `${canaries.hard}\n`);
  writeFileSync(join(sibling, 'secret.txt'), `${canaries.sibling}\n`);
  writeFileSync(join(rootDir, 'inside.txt'), 'inside\n');
  writeFileSync(join(rootDir, 'sub', 'a.txt'), 'a\n');
  writeFileSync(join(rootDir, 'dup.txt'), 'x\nmiddle\nx\n');
  writeFileSync(join(rootDir, 'overlap.txt'), 'abcdef\n');
  writeFileSync(join(rootDir, '.env'), `API_TOKEN=${canaries.secret}\n`);
  writeFileSync(join(rootDir, 'race', 'f.txt'), 'race-inside\n');
  symlinkSync(outside, join(rootDir, 'link-out'));
  symlinkSync(join(outside, 'race-target'), join(rootDir, 'race-alt'));
  mkdirSync(join(outside, 'race-target'));
  writeFileSync(join(outside, 'race-target', 'f.txt'), `${canaries.outside}\n`);
  // What the race edits, renames and deletes: the same names on both sides of the swap.
  for (const side of [join(rootDir, 'race'), join(outside, 'race-target')]) {
    writeFileSync(join(side, 'e.txt'), 'race-edit-me\n');
    for (let i = 1; i <= RACE_ENTRIES; i++) {
      writeFileSync(join(side, `r-${i}.txt`), 'r\n');
      writeFileSync(join(side, `d-${i}.txt`), 'd\n');
    }
  }
  symlinkSync(join(rootDir, 'inside.txt'), join(rootDir, 'link-in'));
  symlinkSync(join(outside, 'created-through-dangling.txt'), join(rootDir, 'dangling'));
  linkSync(join(outside, 'hard-target.txt'), join(rootDir, 'hard'));
  execFileSync('mkfifo', [join(rootDir, 'fifo')]);
  writeFileSync(join(rootDir, 'sparse.bin'), '');
  truncateSync(join(rootDir, 'sparse.bin'), SPARSE_BYTES);
  writeFileSync(join(rootDir, 'big.txt'), Buffer.alloc(BIG_BYTES, 'y\n'));
  // Continuation paging (continuation.ts): a directory to page through, another to replay its token on, files to search.
  for (const d of ['many', 'other', 'found']) mkdirSync(join(rootDir, 'paged', d), { recursive: true });
  for (let i = 0; i < PAGED_ENTRIES; i++) writeFileSync(join(rootDir, 'paged', 'many', `m-${String(i).padStart(2, '0')}.txt`), 'm\n');
  for (let i = 0; i < 5; i++) writeFileSync(join(rootDir, 'paged', 'other', `o-${i}.txt`), 'o\n');
  for (let i = 0; i < PAGED_MATCHES; i++) writeFileSync(join(rootDir, 'paged', 'found', `f-${String(i).padStart(2, '0')}.txt`), `pagingneedle ${String(i).padStart(2, '0')}\n`);
  writeFileSync(join(rootDir, 'pages.txt'), Array.from({ length: PAGED_LINES }, (_, i) => `line ${i + 1}\n`).join(''));

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
  const dispose = (): void => {
    if (root === null) return rmSync(base, { recursive: true, force: true });
    for (const p of [outside, sibling, ...readdirSync(rootDir).filter((n) => !before.has(n)).map((n) => join(rootDir, n))]) rmSync(p, { recursive: true, force: true });
  };
  return { base, root: rootDir, outside, sibling, outsideName, siblingName, canaries, outsideState, dispose };
}
