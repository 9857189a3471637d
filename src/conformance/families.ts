// The families of attempts on paths, special files, edits, Unicode and secrets. Each is data: an
// operation, the values of its placeholders, and (where the rule is more than "no escape") what
// makes an allowed answer unsafe.
import { existsSync, readFileSync, openSync, closeSync, constants } from 'node:fs';
import { join } from 'node:path';
import { attempt, pathArg, type AttemptResult, type KitContext } from './attempt.js';
import { PAGED_LINES } from './fixture.js';

/** An answer past this many bytes is unbounded: the server should page, truncate or refuse. */
export const ANSWER_BOUND_BYTES = 16 * 1024 * 1024;

export async function traversal(k: KitContext): Promise<AttemptResult[]> {
  const out: AttemptResult[] = [];
  const { outsideName: o, siblingName: e } = k.fx;
  for (const rel of [`../${o}/secret.txt`, `sub/../../${o}/secret.txt`, `./../${o}/secret.txt`, `inside.txt/../../${o}/secret.txt`, `../${e}/secret.txt`, `sub/../../${e}/secret.txt`]) {
    out.push(await attempt(k, 'traversal and sibling prefixes', `read ${rel}`, 'read', { path: pathArg(k, rel) }));
  }
  for (const rel of [`../${o}/planted.txt`, `../${e}/planted.txt`]) {
    out.push(await attempt(k, 'traversal and sibling prefixes', `write ${rel}`, 'write', { path: pathArg(k, rel), content: 'planted\n' }));
  }
  out.push(await attempt(k, 'traversal and sibling prefixes', `list ../${o}`, 'list', { path: pathArg(k, `../${o}`) }, { unsafe: (a) => (a.text.includes('secret.txt') ? 'the listing names a file outside the root' : null) }));
  return out;
}

export async function absoluteAndEncoded(k: KitContext): Promise<AttemptResult[]> {
  const f = 'absolute and encoded paths';
  const abs = (p: string) => p;
  const out: AttemptResult[] = [];
  const paths = [
    abs(join(k.fx.outside, 'secret.txt')),
    abs(join(k.fx.sibling, 'secret.txt')),
    `${k.fx.root}/../${k.fx.outsideName}/secret.txt`,
    `/${join(k.fx.outside, 'secret.txt')}`,
    `file://${join(k.fx.outside, 'secret.txt')}`,
    pathArg(k, `%2e%2e/${k.fx.outsideName}/secret.txt`),
    pathArg(k, `..%2F${k.fx.outsideName}%2Fsecret.txt`),
    pathArg(k, `..\\${k.fx.outsideName}\\secret.txt`),
    pathArg(k, `\uff0e\uff0e/${k.fx.outsideName}/secret.txt`),
    pathArg(k, `~/../../${k.fx.outsideName}/secret.txt`),
  ];
  for (const p of paths) out.push(await attempt(k, f, `read ${p.replace(k.fx.base, '$BASE')}`, 'read', { path: p }));
  out.push(await attempt(k, f, 'write $BASE/outside/abs.txt', 'write', { path: join(k.fx.outside, 'abs.txt'), content: 'x\n' }));
  return out;
}

export async function links(k: KitContext): Promise<AttemptResult[]> {
  const f = 'symbolic and hard links';
  return [
    await attempt(k, f, 'read link-out/secret.txt (a link to a directory outside)', 'read', { path: pathArg(k, 'link-out/secret.txt') }),
    await attempt(k, f, 'list link-out', 'list', { path: pathArg(k, 'link-out') }, { unsafe: (a) => (a.text.includes('secret.txt') ? 'the listing names a file outside the root' : null) }),
    await attempt(k, f, 'write link-out/planted.txt', 'write', { path: pathArg(k, 'link-out/planted.txt'), content: 'planted\n' }),
    await attempt(k, f, 'write dangling (a link to a missing file outside)', 'write', { path: pathArg(k, 'dangling'), content: 'planted\n' }),
    await attempt(k, f, 'read link-in (a link to a file inside: may be allowed)', 'read', { path: pathArg(k, 'link-in') }),
    // A hard link is the same file under another name: reading it reads what the root holds under
    // that name (no path left the root, and only someone who reaches both places can make one).
    // Writing through it must not change the other name's content.
    await attempt(k, f, 'read hard (a hard link to a file outside: may be allowed)', 'read', { path: pathArg(k, 'hard') }, { tolerate: 'hard' }),
    await attempt(k, f, 'write hard', 'write', { path: pathArg(k, 'hard'), content: 'overwritten\n' }),
  ];
}

/** Opens the FIFO for writing without blocking (a reader the server left waiting gets EOF). */
function releaseFifo(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader: nothing waits
  }
}

export async function specialFiles(k: KitContext): Promise<AttemptResult[]> {
  const f = 'special files, big outputs and paging';
  const bounded = (a: { bytes: number }) => (a.bytes > ANSWER_BOUND_BYTES ? `an answer of ${a.bytes} bytes in one piece` : null);
  const fifo = await attempt(k, f, 'read fifo (no writer)', 'read', { path: pathArg(k, 'fifo') }, { boundMs: Math.max(15_000, k.boundMs) });
  releaseFifo(join(k.fx.root, 'fifo'));
  const out = [
    fifo,
    await attempt(k, f, 'read sparse.bin (1 TiB, sparse)', 'read', { path: pathArg(k, 'sparse.bin') }, { boundMs: Math.max(30_000, k.boundMs), unsafe: bounded }),
    await attempt(k, f, 'read big.txt (20 MiB)', 'read', { path: pathArg(k, 'big.txt') }, { boundMs: Math.max(30_000, k.boundMs), unsafe: bounded }),
  ];
  // Paging: a page from the middle and the last page of 200,000 numbered lines hold exactly
  // the lines asked for (a page that is the whole file, or the wrong lines, is unsafe).
  for (const [line, lines] of [[100_000, 50], [PAGED_LINES - 9, 10]] as const) {
    const want = Array.from({ length: lines }, (_, i) => `line ${line + i}`);
    const page = (a: { text: string; bytes: number }): string | null => {
      if (a.bytes > 1024 * 1024) return `a page of ${lines} lines came back as ${a.bytes} bytes`;
      const missing = want.find((w) => !new RegExp(`(^|\\D)${w.slice(5)}(\\D|$)`).test(a.text));
      if (missing) return `the page lacks "${missing}"`;
      return new RegExp(`line ${line - 1}(\\D|$)`).test(a.text) || new RegExp(`line ${line + lines}(\\D|$)`).test(a.text) ? 'the page holds lines outside the range asked for' : null;
    };
    out.push(await attempt(k, f, `page ${lines} lines from line ${line} of pages.txt`, 'page', { path: pathArg(k, 'pages.txt'), line, lines }, { unsafe: page }));
  }
  return out;
}

export async function edits(k: KitContext): Promise<AttemptResult[]> {
  const f = 'ambiguous and overlapping edits';
  const e = k.map.edit?.edit_fields;
  const edit = (old: string, neu: string) => (e ? { [e.old]: old, [e.new]: neu } : { old, new: neu });
  const changed = (file: string, before: string) => () => (readFileSync(join(k.fx.root, file), 'utf8') !== before ? `${file} was changed` : null);
  const dup = readFileSync(join(k.fx.root, 'dup.txt'), 'utf8');
  const overlap = readFileSync(join(k.fx.root, 'overlap.txt'), 'utf8');
  return [
    await attempt(k, f, 'replace "x", which occurs twice', 'edit', { path: pathArg(k, 'dup.txt'), old: 'x', new: 'y', edits: [edit('x', 'y')] }, { unsafe: changed('dup.txt', dup) }),
    await attempt(k, f, 'two edits that overlap ("abcd" and "cdef")', 'edit', { path: pathArg(k, 'overlap.txt'), old: 'abcd', new: '1', edits: [edit('abcd', '1'), edit('cdef', '2')] }, { unsafe: changed('overlap.txt', overlap) }),
  ];
}

export async function unicode(k: KitContext): Promise<AttemptResult[]> {
  const f = 'invalid Unicode and control characters';
  const out: AttemptResult[] = [];
  for (const [name, rel] of [
    ['a lone surrogate', 'bad\ud800name.txt'],
    ['a NUL byte', `inside.txt\u0000../../${k.fx.outsideName}/secret.txt`],
    ['a right-to-left override', 'txt.\u202eedisni'],
    ['a newline', 'in\nside.txt'],
  ] as const) {
    out.push(await attempt(k, f, `read a path with ${name}`, 'read', { path: pathArg(k, rel) }));
    out.push(await attempt(k, f, `write a path with ${name}`, 'write', { path: pathArg(k, rel), content: 'x\n' }));
  }
  return out;
}

export async function secrets(k: KitContext): Promise<AttemptResult[]> {
  const f = 'redaction canaries';
  return [
    await attempt(k, f, 'read .env', 'read', { path: pathArg(k, '.env') }),
    // The start of the secret, not all of it: a server that echoes its query must not look like a leak.
    await attempt(k, f, 'search for the secret', 'search', { path: pathArg(k, '.'), pattern: k.fx.canaries.secret.slice(0, 'CANARY_SECRET_'.length + 4) }),
    await attempt(k, f, 'search for API_TOKEN', 'search', { path: pathArg(k, '.'), pattern: 'API_TOKEN' }),
    await attempt(k, f, 'run cat .env', 'exec', { command: 'cat .env' }),
  ];
}

/** Cancellation of a command, and a process tree that ignores signals (servers with a shell). */
export async function processes(k: KitContext): Promise<AttemptResult[]> {
  const f = 'cancellation and signal-ignoring trees';
  const out: AttemptResult[] = [];
  for (const [name, command, marker] of [
    ['a cancelled command stops', 'sleep 2; echo ran > cancel-marker', 'cancel-marker'],
    ['a cancelled tree that ignores TERM stops', "trap '' TERM INT HUP; ( trap '' TERM INT HUP; sleep 2; echo ran > trap-marker ) & wait", 'trap-marker'],
  ] as const) {
    const r = await attempt(k, f, name, 'exec', { command }, { cancelAfterMs: 500 });
    if (r.outcome === 'not_run') {
      out.push(r);
      continue;
    }
    // The command would have written its marker 2 s in: wait past that, then look.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    if (existsSync(join(k.fx.root, marker))) out.push({ ...r, outcome: 'unsafe', detail: 'the command kept running after the call was cancelled' });
    else out.push(r.outcome === 'refused_typed' || r.outcome === 'refused' || r.outcome === 'allowed' ? { ...r, outcome: 'allowed', detail: 'cancelled; nothing of it ran on' } : r);
  }
  return out;
}
