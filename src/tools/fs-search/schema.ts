// The arguments fs.search accepts and the result it returns: the tool's public contract.
import { z } from 'zod';

export const SEARCH_MODES = ['literal', 'regex', 'filename', 'symbol', 'structural'] as const;
export const FILENAME_MATCHES = ['name', 'substring'] as const;
export const SEARCH_OUTPUTS = ['matches', 'count_only', 'paths_only'] as const;
export const STRUCTURAL_LANGUAGES = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust'] as const;
export const TRUNCATION_REASONS = ['max_results', 'max_bytes', 'timeout'] as const;
export const SEARCH_ORDERS = ['path', 'mtime'] as const;

export const DEFAULT_MAX_RESULTS = 200;
export const MAX_RESULTS_LIMIT = 10_000;
export const DEFAULT_MAX_BYTES = 256 * 1024;
export const MIN_MAX_BYTES = 16 * 1024;
export const MAX_BYTES_LIMIT = 4 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const TIMEOUT_LIMIT_MS = 120_000;
export const MAX_CONTEXT_LINES = 10;
/** A line (match or context) is cut to this many bytes around the match. */
export const MAX_LINE_BYTES = 240;
export const MAX_QUERY_BYTES = 4096;

const glob = z.string().min(1).max(1024);

export const fsSearchArgs = z.strictObject({
  mode: z.enum(SEARCH_MODES).default('literal'),
  query: z.string().min(1).max(MAX_QUERY_BYTES).describe('Text, regex (ripgrep syntax), file name or glob (like find -name), symbol name (name or Class.method), or ast-grep pattern'),
  filename_match: z
    .enum(FILENAME_MATCHES)
    .default('name')
    .describe('filename mode: `name` (default) is an exact file name or a glob on it, like find -name; `substring` matches any part of the path'),
  output: z.enum(SEARCH_OUTPUTS).default('matches'),
  order: z
    .enum(SEARCH_ORDERS)
    .default('path')
    .describe('filename mode: `mtime` lists the most recently modified files first (ties in path order); default `path` (UTF-8 byte order)'),
  multiline: z
    .boolean()
    .default(false)
    .describe('regex mode: the pattern may match across lines and `.` matches a newline too (ripgrep -U --multiline-dotall); a match names its first line, and end_line when it goes on past it'),
  include: z.array(glob).max(64).optional().describe('Only paths matching one of these globs'),
  exclude: z.array(glob).max(64).optional().describe('No paths matching any of these globs'),
  include_ignored: z.boolean().default(false).describe('Also search files that .gitignore excludes'),
  include_generated: z.boolean().default(false).describe('Also search node_modules/, dist/ and files marked @generated'),
  case_sensitive: z.boolean().default(true),
  language: z.enum(STRUCTURAL_LANGUAGES).optional().describe('structural mode: the language of the pattern (default: every supported language)'),
  context_lines: z.number().int().min(0).max(MAX_CONTEXT_LINES).default(0),
  max_results: z.number().int().min(1).max(MAX_RESULTS_LIMIT).default(DEFAULT_MAX_RESULTS),
  max_bytes: z.number().int().min(MIN_MAX_BYTES).max(MAX_BYTES_LIMIT).default(DEFAULT_MAX_BYTES),
  timeout_ms: z.number().int().min(1).max(TIMEOUT_LIMIT_MS).default(DEFAULT_TIMEOUT_MS),
  continuation: z.string().min(1).max(8192).optional().describe('Token from a previous truncated page'),
});
export type FsSearchArgs = z.infer<typeof fsSearchArgs>;
export type SearchMode = FsSearchArgs['mode'];
export type SearchOutput = FsSearchArgs['output'];
export type StructuralLanguage = (typeof STRUCTURAL_LANGUAGES)[number];
export type TruncationReason = (typeof TRUNCATION_REASONS)[number];

const contextSchema = z.strictObject({ before: z.array(z.string()), after: z.array(z.string()) });

export const matchSchema = z.strictObject({
  path: z.string(),
  /** 1-based; 0 in filename mode (the match is in the path). */
  line: z.number().int(),
  /** 1-based UTF-8 byte column of the match start. */
  column: z.number().int(),
  /** 1-based UTF-8 byte column just past the match end. */
  end_column: z.number().int(),
  text: z.string(),
  /**
   * structural mode: the line a match spanning lines ends on (`end_column` is on it; `text` is
   * the first line). symbol mode: the last line of the definition (columns are the name's).
   */
  end_line: z.number().int().optional(),
  /** symbol mode: what the definition is (function, class, method, …). */
  kind: z.string().optional(),
  /** symbol mode: the enclosing definitions, outermost first, joined with `.`; absent at top level. */
  container: z.string().optional(),
  context: contextSchema.optional(),
});
export type SearchMatch = z.infer<typeof matchSchema>;

export const countSchema = z.strictObject({ path: z.string(), count: z.number().int() });
export type FileCount = z.infer<typeof countSchema>;

export const skippedSchema = z.strictObject({
  binary: z.number().int(),
  ignored: z.number().int(),
  generated: z.number().int(),
  secret: z.number().int(),
});
export type SkippedCounts = z.infer<typeof skippedSchema>;

export const fsSearchResult = z.strictObject({
  mode: z.enum(SEARCH_MODES),
  output: z.enum(SEARCH_OUTPUTS),
  matches: z.array(matchSchema).nullable(),
  counts: z.array(countSchema).nullable(),
  paths: z.array(z.string()).nullable(),
  /** Matches (or files, for paths_only) of the whole result, known once the last page is out. */
  total: z.number().int().nullable(),
  skipped: skippedSchema,
  truncated: z.boolean(),
  truncation_reason: z.enum(TRUNCATION_REASONS).nullable(),
  continuation: z.string().nullable(),
  revision: z.string(),
  engine: z.string(),
});
export type FsSearchResult = z.infer<typeof fsSearchResult>;
