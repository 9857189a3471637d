// One fs.search page: list candidates, check the continuation against them, feed files to the
// mode's matcher in result order and stop as soon as the page is full or time is up.
import { ToolgateError } from '../../protocol/index.js';
import type { ExecuteContext, ToolOutcome } from '../../registry/index.js';
import { listCandidates, type PathClassCache } from './candidates.js';
import type { CandidateSet } from './candidate-set.js';
import type { CandidateListCache } from './candidate-cache.js';
import { Batches, FIRST_PARSE_BATCH } from './batches.js';
import { FileLines } from './context-lines.js';
import { filenameHits } from './filename.js';
import { hitsByMtime } from './mtime-order.js';
import { openToken, queryDigest, signToken, statDigest, type PageStart } from './continuation.js';
import { FileReader } from './file-access.js';
import type { ContentClassCache } from './content-class.js';
import { PageBuilder } from './page.js';
import { resumeIndex } from './order.js';
import type { FsSearchArgs, FsSearchResult, SkippedCounts, StructuralLanguage } from './schema.js';
import type { ContentEngine, ContentQuery, FileHits, ResultCap, SearchAnswer } from './engines/types.js';
import { findDefinitions, findStructural, parseSymbolQuery } from './engines/ast-search.js';
import { languageOf } from './engines/ast-languages.js';

export interface SearchPrepared {
  /** Languages a structural pattern parses in. */
  readonly languages: readonly StructuralLanguage[];
}

export interface SearchDeps {
  readonly engine: () => Promise<ContentEngine>;
  readonly heads: ContentClassCache;
  readonly classes: PathClassCache;
  readonly lists: CandidateListCache;
}

/**
 * @param speculate start the first batch from a kept candidate list while that list is checked;
 *   when the check fails, the work is dropped and the page is searched again from a new list.
 */
export async function runSearch(ctx: ExecuteContext<FsSearchArgs, SearchPrepared>, deps: SearchDeps, speculate = true): Promise<ToolOutcome<FsSearchResult>> {
  const a = ctx.args;
  const query = queryDigest(a);
  const revision = await ctx.revision.current();
  const start: PageStart | null = a.continuation !== undefined ? openToken(ctx.tokens, a.continuation, query, revision) : null;

  const pageDeadline = Math.min(Date.now() + a.timeout_ms, ctx.deadline);
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new ToolgateError('timed_out', `fs.search passed its timeout_ms of ${a.timeout_ms}`, { timeout_ms: a.timeout_ms })), a.timeout_ms);
  const signal = AbortSignal.any([ctx.signal, timer.signal]);
  const reader = new FileReader(ctx.workspace);
  const lines = new FileLines(reader);
  // Assigned in the switch below; declared without narrowing, for the catch and finally.
  let engine = null as ContentEngine | null;
  /** The engine's close: children stopped early are reaped while the result is built, never after it is returned. */
  let closing: Promise<void> = Promise.resolve();
  let engineName = 'path';
  const page = new PageBuilder(a.output, start?.cursor ?? null, a.max_results, a.max_bytes, a.context_lines);
  const content = { binary: 0, generated: 0 };
  let candidates: CandidateSet | null = null;
  /** The check of a kept list, until it has run. */
  let unconfirmed: (() => Promise<boolean>) | undefined;
  let relist = false;
  try {
    try {
      const tentative = speculate && start === null && (a.mode === 'literal' || a.mode === 'regex');
      const listed = await listCandidates(ctx.workspace, a, signal, deps.classes, deps.lists, tentative);
      candidates = listed;
      unconfirmed = listed.confirm;
      if (start !== null) checkSnapshot(ctx.workspace.root, candidates, start, a.order === 'mtime');
      const files = candidates.files;
      const from = resumeIndex(files, start?.cursor ?? null);
      const fullScan = a.output !== 'matches';
      const progress = (): { room: number; found: number } => ({ room: fullScan ? Infinity : a.max_results - page.results, found: page.results });

      /**
       * Matching lines a file's hits may stop at (want `lines`): the lines up to the cursor, where
       * a page that goes on in that file starts, and one more result than a page holds. A page of
       * 200 results from a log of a million matching lines needs 201 of them; ripgrep printed a
       * million JSON records for it (2.7 s) and the in-process scan made a million hits (0.2 s).
       */
      // Hits are capped too: a page of 200 from one minified line of 2 million matches needs 201
      // of them, past the cursor when the page starts inside that line.
      const cursor = start?.cursor ?? null;
      const after = cursor !== null && cursor.line !== null ? cursor : null;
      const cap: ResultCap | undefined = fullScan ? undefined : { lines: (after?.line ?? 0) + a.max_results + 1, hits: a.max_results + 1, ...(after !== null ? { after } : {}) };
      /** Feeds one batch's answer to the page; false once it is full. */
      const take = async (found: readonly FileHits[], checkContent: boolean, q?: ContentQuery): Promise<boolean> => {
        for (let f of found) {
          if (checkContent) {
            const facts = deps.heads.facts(reader, f.path);
            if (facts === null) continue; // gone, or now a link: not searched
            if (facts.binary) {
              content.binary++;
              continue;
            }
            if (facts.marked && !a.include_generated) {
              content.generated++;
              continue;
            }
          }
          if (f.capped === true && !page.fillsWith(f)) {
            // Fewer results than matching lines (a regex that matches only the empty string on
            // some of them): the rest of the file is needed after all.
            if (engine === null || q === undefined) throw new ToolgateError('internal_error', `a capped file without its engine: ${f.path}`);
            // One file, searched in order on this thread (stopAfter): no worker's answer to carry back.
            const whole = (await engine.search([f.path], q, reader, signal, 1)).found[0];
            if (whole === undefined) continue;
            f = whole;
          }
          if (!page.addFile(f, lines)) return false;
        }
        return true;
      };

      switch (a.mode) {
        case 'filename':
          // In mtime order a later page skips the results already returned (the whole list's stat is bound).
          for (const f of a.order === 'mtime' ? hitsByMtime(ctx.workspace.root, files, a).slice(start?.before ?? 0) : filenameHits(files, from, a)) {
            if (!page.addFile(f, lines)) break;
          }
          break;
        case 'literal':
        case 'regex': {
          engine = await deps.engine();
          engineName = engine.name;
          const q = {
            kind: a.mode,
            pattern: a.query,
            caseSensitive: a.case_sensitive,
            want: a.output === 'matches' ? 'lines' : a.output === 'count_only' ? 'counts' : 'paths',
            multiline: a.multiline,
          } as const;
          if (a.multiline && engine.name !== 'ripgrep') throw new ToolgateError('unsupported', 'multiline search needs ripgrep, which this host lacks', { argument: 'multiline' });
          const plan = new Batches(pageDeadline, progress);
          let first = true;
          for (const batch of plan.over(files, from, fullScan)) {
            // The first batch of a page of matches stops once it holds one result past the
            // page's room (enough to know the page is full). It runs on one thread, in order;
            // later batches are sized from its hit rate and use every thread.
            const stopAfter = fullScan || !first ? undefined : a.max_results - page.results + 1;
            first = false;
            let answer: SearchAnswer;
            const check = unconfirmed;
            if (check) {
              // ripgrep runs on the first batch while the kept list is checked here.
              unconfirmed = undefined;
              const speculative = new AbortController();
              const run = engine.search(batch, q, reader, AbortSignal.any([signal, speculative.signal]), stopAfter, cap);
              run.catch(() => undefined); // awaited below, after the check
              let ok = false;
              try {
                ok = await check();
              } finally {
                if (!ok) {
                  speculative.abort();
                  await run.catch(() => undefined);
                }
              }
              if (!ok) {
                relist = true;
                break;
              }
              answer = await run;
            } else {
              answer = await engine.search(batch, q, reader, signal, stopAfter, cap);
            }
            plan.consumed(answer.searched);
            if (!(await take(answer.found, true, q))) break;
            page.scannedThrough(batch[answer.searched - 1] as string);
          }
          break;
        }
        case 'symbol': {
          engine = await deps.engine();
          engineName = `ast-grep+${engine.name}`;
          const sources = files.slice(from).filter((p) => languageOf(p) !== null);
          const symbol = parseSymbolQuery(a.query);
          if (symbol === null) throw new ToolgateError('invalid_arguments', 'a symbol query is a name or Class.method', { faults: [{ pointer: '/query', message: 'not a symbol name' }] });
          const q = { kind: 'literal', pattern: symbol.name, caseSensitive: a.case_sensitive, want: 'paths' } as const;
          for (const batch of new Batches(pageDeadline, progress).over(sources, 0, fullScan)) {
            // Only files that contain the name are parsed.
            const holding = (await engine.search(batch, q, reader, signal)).found.map((f) => f.path);
            const found = await findDefinitions(holding, symbol, a.case_sensitive, reader, signal);
            if (!(await take(found, true))) break;
            page.scannedThrough(batch[batch.length - 1] as string);
          }
          break;
        }
        case 'structural': {
          engineName = 'ast-grep';
          const langs = ctx.prepared.languages;
          const sources = files.slice(from).filter((p) => {
            const l = languageOf(p);
            return l !== null && langs.includes(l);
          });
          for (const batch of new Batches(pageDeadline, progress, FIRST_PARSE_BATCH).over(sources, 0, false)) {
            const found = await findStructural(batch, a.query, langs, reader, signal);
            if (!(await take(found, true))) break;
            page.scannedThrough(batch[batch.length - 1] as string);
          }
          break;
        }
      }
    } catch (e) {
      // Our own timeout ends the page early; the call's deadline or a cancellation ends the call.
      if (!timer.signal.aborted || ctx.signal.aborted) throw e;
      if (candidates === null) throw new ToolgateError('timed_out', `fs.search could not list the files within timeout_ms (${a.timeout_ms})`, { timeout_ms: a.timeout_ms });
      page.timedOut();
    }
  } catch (e) {
    await engine?.close();
    throw e;
  } finally {
    clearTimeout(timeout);
    reader.close();
    if (engine !== null) closing = engine.close();
  }
  try {
    // Nothing from a kept list leaves unless the list was confirmed.
    if (!relist && unconfirmed !== undefined && !(await unconfirmed())) relist = true;
    if (relist) {
      await closing;
      return runSearch(ctx, deps, false);
    }
    const files = candidates.files;
    const truncated = page.truncation !== null;
    let continuation: string | null = null;
    if (truncated) {
      const upTo = a.order === 'mtime' ? files.length : page.cursor === null ? 0 : resumeIndex(files, { path: page.cursor.path, line: null, column: null });
      continuation = signToken(ctx.tokens, {
        q: query,
        rev: revision,
        list: candidates.listDigest,
        seen: statDigest(ctx.workspace.root, files, upTo, (path) => reader.openedStamp(path)),
        cursor: page.cursor,
        before: (start?.before ?? 0) + page.results,
      });
    }
    const skipped: SkippedCounts = { binary: content.binary, ignored: candidates.skipped.ignored, generated: candidates.skipped.generated + content.generated, secret: candidates.skipped.secret };
    const result: FsSearchResult = {
      mode: a.mode,
      output: a.output,
      matches: a.output === 'matches' ? page.matches : null,
      counts: a.output === 'count_only' ? page.counts : null,
      paths: a.output === 'paths_only' ? page.paths : null,
      total: truncated ? null : (start?.before ?? 0) + page.results,
      skipped,
      truncated,
      truncation_reason: page.truncation,
      continuation,
      revision,
      engine: engineName,
    };
    return { status: 'succeeded', result, truncated };
  } finally {
    await closing;
  }
}

function checkSnapshot(root: string, candidates: CandidateSet, start: PageStart, wholeList: boolean): void {
  const stale = (reason: string, message: string): ToolgateError => new ToolgateError('stale_continuation', message, { reason });
  if (candidates.listDigest !== start.listDigest) throw stale('file_list', 'files were added, removed or newly ignored since the previous page');
  const upTo = wholeList ? candidates.files.length : start.cursor === null ? 0 : resumeIndex(candidates.files, { path: start.cursor.path, line: null, column: null });
  if (statDigest(root, candidates.files, upTo) !== start.seenDigest) throw stale('file_changed', 'a file already searched changed since the previous page');
}

