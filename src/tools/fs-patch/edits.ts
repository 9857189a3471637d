// The structured edits of one file, as fs.patch accepts them. Every edit is placed in the
// ORIGINAL text of the file (line numbers and matches refer to the file as it was read), so one
// edit never shifts the lines of another, and two that touch the same text are refused.
import { z } from 'zod';

export const textEdit = z.strictObject({
  old: z.string().min(1),
  new: z.string(),
  replace_all: z.boolean().optional(),
  /** exact (default): byte for byte; whitespace: whole lines, indentation and trailing spaces ignored. */
  match: z.enum(['exact', 'whitespace']).optional(),
});

/** `lines: "a:b"` (or `"a"`): replace lines a..b inclusive, 1-based, with `new`. */
export const rangeEdit = z.strictObject({
  lines: z.string().regex(/^[1-9]\d{0,8}(:[1-9]\d{0,8})?$/, 'a line range "a:b" (1-based, inclusive) or a line "a"')
    .refine((r) => { const [a, b] = r.split(':').map(Number); return b === undefined || (a as number) <= b; }, 'the range "a:b" needs a <= b'),
  new: z.string(),
  /** The text of lines a..b as the agent read it; required unless the file's expected_sha256 is given. */
  expect: z.string().optional(),
});

/** `insert_line: n`: insert `new` after line n (0 = at the top). */
export const insertEdit = z.strictObject({
  insert_line: z.number().int().min(0).max(999_999_999),
  new: z.string().min(1),
  /** The text of the line(s) ending at line n, as read; required for n > 0 unless expected_sha256 is given. */
  expect: z.string().optional(),
});

export const edit = z.union([textEdit, rangeEdit, insertEdit]);
export type Edit = z.infer<typeof edit>;
export type TextEdit = z.infer<typeof textEdit>;
export type RangeEdit = z.infer<typeof rangeEdit>;
export type InsertEdit = z.infer<typeof insertEdit>;

/** Where an edit landed, in the original's line numbers; `matched` is the file's own text for a whitespace match. */
export const appliedEdit = z.strictObject({
  edit: z.number().int(),
  match: z.enum(['exact', 'whitespace', 'lines', 'insert']),
  /** For an insert, both are the line it went after (0 = top). */
  start_line: z.number().int(),
  end_line: z.number().int(),
  occurrences: z.number().int(),
  matched: z.string().optional(),
  reindented: z.boolean().optional(),
});
export type AppliedEdit = z.infer<typeof appliedEdit>;

/** A piece of the original text [start, end) to be replaced, found for one edit. */
export interface Span {
  readonly edit: number;
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}
