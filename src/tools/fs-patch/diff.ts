// Unified diffs for the result: computed from before/after lines (Myers, 3 lines of context)
// for structured edits, or re-emitted from the hunks a unified diff applied.
import type { Hunk, HunkLine } from './parse.js';
import type { Lines } from './text.js';

const CONTEXT = 3;

/**
 * The most edit steps (lines removed plus lines added, after the common start and end) the
 * shortest edit script is searched for. Myers' search keeps one row of its frontier per step,
 * and the whole row was kept: deleting a file of 53,000 lines kept 53,000 rows of 106,000
 * numbers (22 GB allocated and freed) and held the event loop 14-48 s. Rows now hold only the
 * diagonals a step can reach (2d+3 numbers), and past this many steps the middle is shown as its
 * old lines removed and its new lines added: a valid diff, not the shortest, for a change too
 * large for a reader to follow line by line anyway (the search gives up after ~20 ms here, 16 MB).
 */
export const MAX_EDIT_STEPS = 2_000;

/**
 * Myers' O(ND) shortest edit script over lines, as a list of ops in order, from line `skipped`
 * of both (0-based): the lines both texts start with are left out but for the CONTEXT lines
 * before the first change, and so are the lines they end with but for the CONTEXT lines after
 * the last. Hunks need no more of them: one edit in a file of 200,000 lines made an op for
 * every line (and a line number for each), ~70 ms of a held event loop for a 4 MB file.
 */
function editScript(a: readonly string[], b: readonly string[]): { readonly skipped: number; readonly script: HunkLine[] } {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const mid = shortestMiddle(A, B) ?? [...A.map((text): HunkLine => ({ op: '-', text })), ...B.map((text): HunkLine => ({ op: '+', text }))];
  const skipped = Math.max(0, pre - CONTEXT);
  const same = (text: string): HunkLine => ({ op: ' ', text });
  return { skipped, script: [...a.slice(skipped, pre).map(same), ...mid, ...a.slice(a.length - suf, a.length - suf + CONTEXT).map(same)] };
}

/** The shortest edit script from A to B; null when it takes more than MAX_EDIT_STEPS steps. */
function shortestMiddle(A: readonly string[], B: readonly string[]): HunkLine[] | null {
  const N = A.length;
  const M = B.length;
  // All removed or all added: that is the shortest script, and the search would take N + M steps.
  if (N === 0 || M === 0) return null;
  // The shortest script takes at most N + M steps; the search stops at MAX_EDIT_STEPS.
  const max = Math.min(N + M, MAX_EDIT_STEPS);
  // v[off + k]: the furthest x on diagonal k; k runs over -max-1 … max+1.
  const off = max + 1;
  const v = new Int32Array(2 * max + 4);
  // trace[d]: v[off-d-1 … off+d+1] as it was before step d (the diagonals step d reads).
  const trace: Int32Array[] = [];
  let done = false;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[off + k - 1] as number) < (v[off + k + 1] as number)) ? (v[off + k + 1] as number) : (v[off + k - 1] as number) + 1;
      let y = x - k;
      while (x < N && y < M && A[x] === B[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= N && y >= M) {
        done = true;
        break;
      }
    }
  }
  if (!done) return null;
  const mid: HunkLine[] = [];
  let x = N;
  let y = M;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Int32Array;
    const at = (k: number): number => vd[k + d + 1] as number;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = at(prevK);
    const py = px - prevK;
    while (x > px && y > py) {
      x--;
      y--;
      mid.push({ op: ' ', text: A[x] as string });
    }
    if (d === 0) break;
    if (x === px) mid.push({ op: '+', text: B[--y] as string });
    else mid.push({ op: '-', text: A[--x] as string });
  }
  return mid.reverse();
}

/** Marks a last line without '\n' so that it differs from the same text with one (text never holds NUL). */
const NOEOL = '\u0000';
function marked(l: Lines): string[] {
  if (l.eofNewline || l.lines.length === 0) return l.lines;
  return [...l.lines.slice(0, -1), `${l.lines[l.lines.length - 1] as string}${NOEOL}`];
}

/** Groups an edit script into hunks with CONTEXT lines around each change. */
export function diffHunks(before: Lines, after: Lines): Hunk[] {
  const { skipped, script } = editScript(marked(before), marked(after));
  const hunks: Hunk[] = [];
  let i = 0;
  let oldNo = 1 + skipped;
  let newNo = 1 + skipped;
  const oldAt: number[] = [];
  const newAt: number[] = [];
  for (const l of script) {
    oldAt.push(oldNo);
    newAt.push(newNo);
    if (l.op !== '+') oldNo++;
    if (l.op !== '-') newNo++;
  }
  while (i < script.length) {
    if ((script[i] as HunkLine).op === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - CONTEXT);
    let end = i;
    let lastChange = i;
    while (end < script.length) {
      if ((script[end] as HunkLine).op !== ' ') lastChange = end;
      else if (end - lastChange > 2 * CONTEXT) break;
      end++;
    }
    end = Math.min(script.length, lastChange + CONTEXT + 1);
    const raw = script.slice(start, end);
    const lines = raw.map((l) => (l.text.endsWith(NOEOL) ? { op: l.op, text: l.text.slice(0, -1) } : l));
    const oldLines = lines.filter((l) => l.op !== '+').length;
    const newLines = lines.filter((l) => l.op !== '-').length;
    const oldStart = oldLines === 0 ? (oldAt[start] as number) - 1 : (oldAt[start] as number);
    const newStart = newLines === 0 ? (newAt[start] as number) - 1 : (newAt[start] as number);
    hunks.push({
      oldStart,
      oldLines,
      newStart,
      newLines,
      section: '',
      lines,
      oldNoNewline: raw.some((l) => l.op !== '+' && l.text.endsWith(NOEOL)),
      newNoNewline: raw.some((l) => l.op !== '-' && l.text.endsWith(NOEOL)),
    });
    i = end;
  }
  return hunks;
}

function quote(path: string): string {
  // git quotes paths with control characters, quotes, backslashes or non-ASCII bytes.
  for (const ch of path) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x20 || c >= 0x7f || ch === '"' || ch === '\\') return JSON.stringify(path);
  }
  return path;
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

export interface FileDiff {
  readonly path: string;
  /** A move's source (status `renamed`). */
  readonly from?: string;
  readonly status: 'modified' | 'created' | 'deleted' | 'renamed';
  readonly oldMode: number | null;
  readonly newMode: number | null;
  readonly hunks: readonly Hunk[];
}

/** git's format: headers, hunks, and `\ No newline at end of file` where it applies. */
export function formatDiff(files: readonly FileDiff[]): string {
  const out: string[] = [];
  for (const f of files) {
    const a = quote(`a/${f.from ?? f.path}`);
    const b = quote(`b/${f.path}`);
    out.push(`diff --git ${a} ${b}`);
    if (f.status === 'renamed') out.push(`rename from ${quote(f.from ?? f.path)}`, `rename to ${quote(f.path)}`);
    if (f.status === 'created') out.push(`new file mode 100${(f.newMode ?? 0o644).toString(8).padStart(3, '0')}`);
    else if (f.status === 'deleted') out.push(`deleted file mode 100${(f.oldMode ?? 0o644).toString(8).padStart(3, '0')}`);
    else if (f.oldMode !== null && f.newMode !== null && f.oldMode !== f.newMode) {
      out.push(`old mode 100${f.oldMode.toString(8)}`, `new mode 100${f.newMode.toString(8)}`);
    }
    if (f.hunks.length === 0) continue;
    out.push(`--- ${f.status === 'created' ? '/dev/null' : a}`, `+++ ${f.status === 'deleted' ? '/dev/null' : b}`);
    for (const h of f.hunks) {
      out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@${h.section}`);
      const lastOld = h.lines.map((l) => l.op !== '+').lastIndexOf(true);
      const lastNew = h.lines.map((l) => l.op !== '-').lastIndexOf(true);
      h.lines.forEach((l, i) => {
        out.push(l.op + l.text);
        if ((i === lastOld && h.oldNoNewline) || (i === lastNew && h.newNoNewline)) out.push('\\ No newline at end of file');
      });
    }
  }
  return out.length ? out.join('\n') + '\n' : '';
}
