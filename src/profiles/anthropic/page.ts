// An fs.read page seen the way the reference editor sees a file: `content.split("\n")`, so a file
// that ends with a newline has one more, empty, line (a 5-line file "has 6 lines"). The page
// knows whether the file ends with a newline only when it reaches the end; elsewhere the
// reference count is assumed (most text files end with one), which only widens what is allowed.
import { resultOf } from './text.js';
import type { Receipt } from '../../protocol/index.js';

export interface Page {
  readonly path: string;
  readonly sha256: string;
  readonly binary: boolean;
  readonly size: number;
  /** Lines as Toolgate counts them (a final newline ends the last line). */
  readonly total: number;
  readonly start: number;
  /** The page's last line (start - 1 when it is empty). */
  readonly end: number;
  readonly content: string;
  readonly atEnd: boolean;
  readonly truncated: boolean;
  /** Lines as the reference counts them: `total + 1` when the file ends with a newline. */
  readonly referenceLines: number;
}

export function pageOf(r: Receipt | undefined): Page | null {
  const res = resultOf(r);
  if (typeof res['sha256'] !== 'string' || typeof res['total_lines'] !== 'number') return null;
  const content = typeof res['content'] === 'string' ? res['content'] : '';
  const size = Number(res['size']);
  const atEnd = Number(res['byte_offset']) + Number(res['byte_length']) >= size;
  const endsWithNewline = size === 0 ? false : atEnd && content !== '' ? content.endsWith('\n') : true;
  const total = res['total_lines'];
  return {
    path: String(res['path']),
    sha256: res['sha256'],
    binary: res['binary'] === true,
    size,
    total,
    start: Number(res['start_line']),
    end: Number(res['end_line']),
    content,
    atEnd,
    truncated: res['truncated'] === true,
    referenceLines: size === 0 ? 1 : total + (endsWithNewline ? 1 : 0),
  };
}

/**
 * The page's lines as the reference slices them out of `file.split("\n")`, up to 0-based line
 * `lastIndex`: the empty element after a final newline is kept when the page reaches the end.
 */
export function referenceLines(p: Page, lastIndex: number): string[] {
  const lines = p.content.split('\n');
  if (p.content.endsWith('\n')) lines.pop();
  if (p.atEnd && p.content.endsWith('\n') && p.total <= lastIndex) lines.push('');
  return lines;
}
