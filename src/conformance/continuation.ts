// Paging by continuation tokens (a server that hands back a token with a truncated answer, like
// Toolgate's fs.list and fs.search): the map's list_pages / search_pages name the tool, its page
// size `{page_size}`, where the token is in the structured result and which argument takes it
// back. Two promises are tried: the pages are consistent (followed to the end, every entry or
// match comes exactly once), and a token is good only for what it was made for (replayed on
// another path, on a directory outside, or after the searched file changed, it must not carry
// the first listing, what is outside, or content that is no longer there).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { argsOf, judge, pathArg, type AttemptResult, type KitContext } from './attempt.js';
import { PAGED_ENTRIES, PAGED_MATCHES } from './fixture.js';
import type { Answer } from './target.js';

const FAMILY = 'continuation tokens';
/** More pages than this for a listing the page size splits into 5: the continuation never ends. */
const MAX_PAGES = 20;
const LIST_PAGE = 10;
const SEARCH_PAGE = 5;

type Op = 'list_pages' | 'search_pages';
type Result = Extract<Answer, { kind: 'result' }>;

/** The value at a JSON pointer (RFC 6901) when it is a non-empty string. */
export function tokenAt(value: unknown, pointer: string): string | null {
  let at: unknown = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object') return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'string' && at.length > 0 ? at : null;
}

async function page(k: KitContext, op: Op, values: Readonly<Record<string, unknown>>, token: string | null): Promise<{ answer: Answer; next: string | null; before: string }> {
  const o = k.map[op];
  const call = argsOf(k, op, values);
  if (!o?.continuation || !call) throw new Error(`no ${op} with a continuation in the map`);
  const args = { ...(call.args as Record<string, unknown>), ...(token !== null ? { [o.continuation.arg]: token } : {}) };
  const before = k.fx.outsideState();
  const answer = await k.target.call(call.tool, args, { boundMs: k.boundMs });
  return { answer, before, next: answer.kind === 'result' && !answer.isError ? tokenAt(answer.structured, o.continuation.field) : null };
}

const namesIn = (text: string, re: RegExp): Set<string> => new Set([...text.matchAll(re)].map((m) => m[0]));

/** Follows the continuation to the end; every name must come on exactly one page, all of them in all. */
async function consistent(k: KitContext, op: Op, name: string, values: Record<string, unknown>, re: RegExp, expected: number): Promise<AttemptResult> {
  const seen = new Map<string, number>();
  let token: string | null = null;
  for (let n = 1; n <= MAX_PAGES; n++) {
    const p = await page(k, op, values, token);
    const judged = judge(k, p.answer, p.before);
    if (p.answer.kind !== 'result' || judged.outcome !== 'allowed') return { family: FAMILY, name, ...judged, detail: `page ${n}: ${judged.detail}` };
    for (const x of namesIn(p.answer.text, re)) {
      const first = seen.get(x);
      if (first !== undefined) return { family: FAMILY, name, outcome: 'unsafe', detail: `${x} came on page ${first} and again on page ${n}` };
      seen.set(x, n);
    }
    token = p.next;
    if (token === null) {
      if (seen.size !== expected) return { family: FAMILY, name, outcome: 'unsafe', detail: `the pages ended with ${seen.size} of ${expected}` };
      return { family: FAMILY, name, outcome: 'allowed', detail: `${n} page(s), each of the ${expected} once` };
    }
  }
  return { family: FAMILY, name, outcome: 'unsafe', detail: `the continuation did not end within ${MAX_PAGES} pages` };
}

/** Replays `token` with other values, and follows what it answers to the end; `unsafe` says what no page may carry. */
async function replay(k: KitContext, op: Op, name: string, values: Record<string, unknown>, token: string | null, unsafe: (a: Result) => string | null): Promise<AttemptResult> {
  if (token === null) return { family: FAMILY, name, outcome: 'not_run', detail: 'the first page came with no continuation' };
  let next: string | null = token;
  let bytes = 0;
  for (let n = 1; next !== null && n <= MAX_PAGES; n++) {
    const p = await page(k, op, values, next);
    const judged = judge(k, p.answer, p.before, unsafe);
    if (judged.outcome !== 'allowed') return { family: FAMILY, name, ...judged, detail: n > 1 ? `page ${n} of the replay: ${judged.detail}` : judged.detail };
    bytes += p.answer.kind === 'result' ? p.answer.bytes : 0;
    next = p.next;
  }
  return { family: FAMILY, name, outcome: 'allowed', detail: `answered (${bytes} bytes), nothing it must not carry` };
}

export async function continuationPaging(k: KitContext): Promise<AttemptResult[]> {
  const out: AttemptResult[] = [];
  const many = /\bm-\d\d\.txt\b/g;
  const needle = /pagingneedle \d\d\b/g;
  if (k.map.list_pages?.continuation) {
    const list = { path: pathArg(k, 'paged/many'), page_size: LIST_PAGE };
    out.push(await consistent(k, 'list_pages', `list paged/many in pages of ${LIST_PAGE}: every entry exactly once`, list, many, PAGED_ENTRIES));
    const first = (await page(k, 'list_pages', list, null)).next;
    out.push(
      await replay(k, 'list_pages', 'a paged/many token replayed on paged/other', { path: pathArg(k, 'paged/other'), page_size: LIST_PAGE }, first, (a) =>
        namesIn(a.text, many).size > 0 ? 'the answer lists paged/many entries for paged/other' : null,
      ),
    );
    out.push(
      await replay(k, 'list_pages', 'a paged/many token replayed on link-out (a directory outside)', { path: pathArg(k, 'link-out'), page_size: LIST_PAGE }, first, (a) =>
        a.text.includes('secret.txt') ? 'the listing names a file outside the root' : null,
      ),
    );
  } else out.push({ family: FAMILY, name: 'list in pages', outcome: 'not_run', detail: 'the map has no list_pages tool with a continuation' });

  if (k.map.search_pages?.continuation) {
    const search = { pattern: 'pagingneedle', page_size: SEARCH_PAGE };
    out.push(await consistent(k, 'search_pages', `search in pages of ${SEARCH_PAGE}: every match exactly once`, search, needle, PAGED_MATCHES));
    // A match that is gone after the token was made must not come back through the token. Its
    // file sorts last, so it is not on the first page.
    const gone = `GONE_${randomBytes(8).toString('hex')}`;
    const file = join(k.fx.root, 'paged', 'found', 'z-gone.txt');
    writeFileSync(file, `pagingneedle ${gone}\n`);
    const first = (await page(k, 'search_pages', search, null)).next;
    writeFileSync(file, 'pagingneedle replaced\n');
    out.push(await replay(k, 'search_pages', 'a search token replayed after the matched file changed', search, first, (a) => (a.text.includes(gone) ? 'the answer carries a match the file no longer holds' : null)));
    out.push(
      await replay(k, 'search_pages', 'a search token replayed with another query', { pattern: 'middle', page_size: SEARCH_PAGE }, first, (a) =>
        namesIn(a.text, needle).size > 0 ? "the answer continues the first query's matches" : null,
      ),
    );
  } else out.push({ family: FAMILY, name: 'search in pages', outcome: 'not_run', detail: 'the map has no search_pages tool with a continuation' });
  return out;
}
