// The arguments fs.list accepts and the result it returns: the tool's public contract.
import { z } from 'zod';

export const DEFAULT_DEPTH = 2;
export const MAX_DEPTH = 32;
export const DEFAULT_MAX_ENTRIES = 500;
export const MAX_ENTRIES_LIMIT = 5_000;
/**
 * Past the page, entries are counted (not listed) up to this many; above it `more_exact` is false.
 * The walk is synchronous on the main thread (an lstat per entry), so this bound keeps one call
 * from holding the event loop for long: 10,000 lstats take milliseconds; 100,000 took a large
 * fraction of a second, during which no other call advanced.
 */
export const MORE_COUNT_LIMIT = 10_000;

export const fsListArgs = z.strictObject({
  path: z.string().min(1).default('.').describe('Directory beneath the workspace root (default: the root)'),
  depth: z.number().int().min(1).max(MAX_DEPTH).default(DEFAULT_DEPTH).describe('Levels to show: 1 lists the directory itself (ls), 2 also the contents of its subdirectories (tree -L 2)'),
  max_entries: z.number().int().min(1).max(MAX_ENTRIES_LIMIT).default(DEFAULT_MAX_ENTRIES).describe('Entries on one page; the rest is counted and reachable with the continuation'),
  include_ignored: z.boolean().default(false).describe('Also list what .gitignore excludes'),
  include_generated: z.boolean().default(false).describe('Also list node_modules/ and dist/ directories'),
  continuation: z.string().min(1).max(8192).optional().describe('Token from a previous truncated page'),
});
export type FsListArgs = z.infer<typeof fsListArgs>;

export const ENTRY_TYPES = ['file', 'directory', 'symlink', 'other'] as const;
export const LINK_HIDDEN = ['outside_workspace', 'secret'] as const;

export const entrySchema = z.strictObject({
  /** Workspace-relative. */
  path: z.string(),
  type: z.enum(ENTRY_TYPES),
  /** 1 for the listed directory's own entries. */
  depth: z.number().int(),
  /** Bytes, for regular files; null otherwise. */
  size: z.number().int().nullable(),
  /** Links: the workspace-relative path the link resolves to; null when hidden (see `target_hidden`) or dangling. */
  target: z.string().nullable().optional(),
  /** Links: what the target is (`missing` for a dangling link); null when hidden. */
  target_type: z.enum(['file', 'directory', 'other', 'missing']).nullable().optional(),
  /** Links: why the target is not shown. A link is never followed out of the workspace. */
  target_hidden: z.enum(LINK_HIDDEN).nullable().optional(),
});
export type ListEntry = z.infer<typeof entrySchema>;

export const omittedSchema = z.strictObject({
  /** Entries .gitignore excludes (an ignored directory counts once). */
  ignored: z.number().int(),
  /** node_modules/ and dist/ directories. */
  generated: z.number().int(),
  /** Secret files and directories (the workspace's secret patterns), never listed. */
  secret: z.number().int(),
});
export type OmittedCounts = z.infer<typeof omittedSchema>;

export const fsListResult = z.strictObject({
  /** The listed directory, workspace-relative (`.` for the root). */
  path: z.string(),
  depth: z.number().int(),
  /** Depth-first, each directory's entries in byte order of their names; a directory before its contents. */
  entries: z.array(entrySchema),
  /** Omitted on this page's part of the tree. */
  omitted: omittedSchema,
  truncated: z.boolean(),
  /** Entries past this page (counted, not listed). */
  more: z.number().int(),
  /** False when counting stopped at the limit: there are at least `more`. */
  more_exact: z.boolean(),
  continuation: z.string().nullable(),
  revision: z.string(),
  /** The listing as an indented tree, the way a model reads it (also the MCP text content). */
  text: z.string(),
});
export type FsListResult = z.infer<typeof fsListResult>;
