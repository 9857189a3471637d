// Where a chunk's lines are in a file, with the original's tolerance levels, tried in order:
// exact, then trailing whitespace ignored, then leading and trailing whitespace ignored, then
// Unicode dashes, quotes and spaces read as their ASCII forms (the facts' seek_sequence). The
// original returns the first match at the first level that has one; this returns every match at
// that level, so that the caller can refuse a choice the patch does not make.

export type SeekLevel = 'exact' | 'trailing_whitespace' | 'whitespace' | 'unicode';

const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const SPACES = /[\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000]/g;

function normalise(s: string): string {
  return s.trim().replace(DASHES, '-').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(SPACES, ' ');
}

const LEVELS: readonly (readonly [SeekLevel, (s: string) => string])[] = [
  ['exact', (s) => s],
  ['trailing_whitespace', (s) => s.trimEnd()],
  ['whitespace', (s) => s.trim()],
  ['unicode', normalise],
];

export interface Seek {
  readonly level: SeekLevel;
  /** 0-based first lines of every match at that level, in order. */
  readonly at: readonly number[];
}

/**
 * Every place at or after `from` where `pattern` is, at the first level that finds one; with
 * `atEnd`, only the place where it ends the file. null when no level finds it.
 */
export function seekLines(file: readonly string[], pattern: readonly string[], from: number, atEnd: boolean): Seek | null {
  const k = pattern.length;
  if (k === 0 || k > file.length) return null;
  const first = atEnd ? file.length - k : from;
  for (const [level, key] of LEVELS) {
    const want = pattern.map(key);
    const at: number[] = [];
    for (let i = Math.max(first, 0); i + k <= file.length; i++) {
      let same = true;
      for (let j = 0; same && j < k; j++) same = key(file[i + j] as string) === want[j];
      if (same) at.push(i);
    }
    if (at.length > 0) return { level, at };
  }
  return null;
}
