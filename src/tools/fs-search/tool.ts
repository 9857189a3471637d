import { ToolgateError } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import { runChild } from '../../resources/index.js';
import { JavaScriptEngine } from './engines/javascript.js';
import { RipgrepEngine } from './engines/ripgrep.js';
import { ScanWorkers } from './engines/scan-workers.js';
import { parseSymbolQuery, structuralLanguages } from './engines/ast-search.js';
import type { ContentEngine } from './engines/types.js';
import { runSearch, type SearchPrepared } from './run-search.js';
import { ContentClassCache } from './content-class.js';
import { searchResources } from './resources.js';
import { PathClassCache } from './candidates.js';
import { CandidateListCache } from './candidate-cache.js';
import { fsSearchArgs, fsSearchResult, MAX_BYTES_LIMIT, TIMEOUT_LIMIT_MS, type FsSearchArgs, type FsSearchResult } from './schema.js';

export interface FsSearchOptions {
  /** `auto` (default): ripgrep when it runs, else the JavaScript engine. */
  readonly engine?: 'auto' | 'ripgrep' | 'javascript';
  /** The ripgrep executable; default `rg` on PATH. */
  readonly ripgrep?: string;
}

const VALIDATE_TIMEOUT_MS = 5_000;

function invalidQuery(message: string): ToolgateError {
  return new ToolgateError('invalid_arguments', message, { faults: [{ pointer: '/query', message }] });
}

/** fs.search: literal, regex, file name, symbol and structural search, bounded and resumable. */
export function createFsSearch(opts: FsSearchOptions = {}): ToolDefinition<FsSearchArgs, FsSearchResult, SearchPrepared> {
  const choice = opts.engine ?? 'auto';
  const rg = opts.ripgrep ?? 'rg';
  let hasRipgrep: Promise<boolean> | null = null;
  const heads = new ContentClassCache();
  const classes = new PathClassCache();
  const lists = new CandidateListCache();
  const workers = new ScanWorkers();
  const ripgrepRuns = (): Promise<boolean> =>
    (hasRipgrep ??= runChild(rg, ['--version'], { cwd: '/', signal: new AbortController().signal, onStdout: () => {} }).then(
      (r) => r.code === 0,
      () => false,
    ));
  const engineFor = async (root: string): Promise<ContentEngine> => {
    if (choice === 'javascript') return new JavaScriptEngine();
    if (choice === 'ripgrep' || (await ripgrepRuns())) return new RipgrepEngine(rg, root, undefined, undefined, true, workers);
    return new JavaScriptEngine();
  };

  return defineTool<FsSearchArgs, FsSearchResult, SearchPrepared>({
    name: 'fs.search',
    module: import.meta.url,
    version: '2.1.0',
    description:
      'Search the workspace: literal text, regex (ripgrep syntax), file names (an exact name or a glob on the name, like find -name; filename_match: substring for any part of the path), symbol definitions by name or Class.method (TypeScript/JavaScript, Python, Go, Rust; with the container and end line) or structural ast-grep patterns. Honours .gitignore; skips binary, generated and secret files and counts them. Results are ordered by path (UTF-8 bytes), line, column and paged with a continuation token.',
    owner: 'toolgate',
    effect_class: 'read',
    reversible: true,
    capabilities: ['fs.read'],
    args: fsSearchArgs,
    result: fsSearchResult,
    timeout_ms: TIMEOUT_LIMIT_MS + 10_000,
    max_output_bytes: MAX_BYTES_LIMIT,
    cancellation: 'kill',
    idempotency: 'safe_to_repeat',
    async normalize(args, ctx) {
      let languages: SearchPrepared['languages'] = [];
      switch (args.mode) {
        case 'literal':
          if (args.query.includes('\n')) throw invalidQuery('a literal query is one line: it may not contain a newline');
          break;
        case 'regex': {
          const engine = await engineFor(ctx.workspace.root);
          const stop = new AbortController();
          const timer = setTimeout(() => stop.abort(new ToolgateError('timed_out', 'checking the regex took too long', { timeout_ms: VALIDATE_TIMEOUT_MS })), VALIDATE_TIMEOUT_MS);
          try {
            await engine.validate({ kind: 'regex', pattern: args.query, caseSensitive: args.case_sensitive, want: 'paths', multiline: args.multiline }, stop.signal);
          } finally {
            clearTimeout(timer);
            await engine.close();
          }
          break;
        }
        case 'filename':
          break;
        case 'symbol':
          if (parseSymbolQuery(args.query) === null) throw invalidQuery('a symbol query is a name (parseConfig) or a name inside its containers (ConfigStore.load, Outer.Inner.method, Parser::parse)');
          break;
        case 'structural':
          languages = structuralLanguages(args.query, args.language);
          break;
      }
      if (args.multiline && args.mode !== 'regex') {
        throw new ToolgateError('invalid_arguments', 'multiline applies to regex mode only', { faults: [{ pointer: '/multiline', message: 'regex mode only' }] });
      }
      if (args.order === 'mtime' && args.mode !== 'filename') {
        throw new ToolgateError('invalid_arguments', 'order mtime applies to filename mode only', { faults: [{ pointer: '/order', message: 'filename mode only' }] });
      }
      if (args.mode !== 'structural' && args.language !== undefined) {
        throw new ToolgateError('invalid_arguments', 'language applies to structural mode only', { faults: [{ pointer: '/language', message: 'structural mode only' }] });
      }
      return { resources: searchResources(args.include, ctx.workspace.root), prepared: { languages } };
    },
    execute(ctx) {
      return runSearch(ctx, { engine: () => engineFor(ctx.workspace.root), heads, classes, lists });
    },
    async dispose() {
      lists.close(); // the inotify instances of the kept lists
      await workers.close();
    },
  });
}
