// A parser for unified diffs as `git diff` prints them (and plain `diff -u` output).
import { ToolgateError } from '../../protocol/index.js';

export interface HunkLine {
  readonly op: ' ' | '-' | '+';
  readonly text: string;
}

export interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** Text after the second `@@` (git's function context), kept for the result's diff. */
  readonly section: string;
  readonly lines: readonly HunkLine[];
  /** `\ No newline at end of file` after the last old / new line. */
  readonly oldNoNewline: boolean;
  readonly newNoNewline: boolean;
}

export interface FilePatch {
  /** null for a created file (`--- /dev/null`). */
  readonly oldPath: string | null;
  /** null for a deleted file (`+++ /dev/null`). */
  readonly newPath: string | null;
  readonly newMode: number | null;
  readonly hunks: readonly Hunk[];
}

function fault(line: number, message: string): ToolgateError {
  return new ToolgateError('invalid_arguments', `unified_diff line ${line}: ${message}`, { faults: [{ pointer: '/unified_diff', message, line }] });
}

/** git quotes paths with unusual bytes: "a/b\tc" with C escapes. */
function unquote(raw: string, line: number): string {
  if (!raw.startsWith('"')) return raw;
  if (!raw.endsWith('"') || raw.length < 2) throw fault(line, 'unterminated quoted path');
  const bytes: number[] = [];
  const body = raw.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const n = body[++i] ?? '';
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else if (simple[n] !== undefined) bytes.push(simple[n]);
    else throw fault(line, `bad escape \\${n} in quoted path`);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path on a `---`/`+++` line: strip the timestamp `diff -u` adds and git's a/ b/ prefix. */
function headerPath(rest: string, prefix: 'a/' | 'b/', git: boolean, line: number): string | null {
  let p = rest.startsWith('"') ? rest.slice(0, rest.indexOf('"', 1) + 1) : rest.split('\t')[0] ?? '';
  p = unquote(p.trimEnd(), line);
  if (p === '/dev/null') return null;
  if (git || p.startsWith(prefix)) {
    if (!p.startsWith(prefix)) throw fault(line, `expected a path starting with ${prefix}`);
    p = p.slice(2);
  }
  if (p.length === 0) throw fault(line, 'empty path');
  return p;
}

/**
 * The file modes git records for a regular file: 100644 and 100755. Anything else is refused:
 * a set-id or sticky mode (104755 made a setuid-root file) is not a mode git writes, and links
 * (120000) and submodules (160000) are not files fs.patch creates.
 */
function gitFileMode(raw: string, line: number): number {
  const text = raw.trim();
  if (text === '100644' || text === '100755') return parseInt(text, 8);
  if (text === '120000' || text === '160000') throw new ToolgateError('unsupported', `file mode ${text} (a link or submodule) is not applied; fs.patch writes regular files`, { line, mode: text });
  throw fault(line, `file mode ${text.slice(0, 16)} is not 100644 or 100755 (set-id and sticky bits are never written)`);
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

export function parseUnifiedDiff(text: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    const start = lines[i] as string;
    if (!start.startsWith('diff --git ') && !start.startsWith('--- ')) {
      i++; // commit messages, `index` lines of unknown position, blank lines between files
      continue;
    }
    const git = start.startsWith('diff --git ');
    let newMode: number | null = null;
    let deleted = false;
    let created = false;
    if (git) {
      i++;
      while (i < lines.length && !(lines[i] as string).startsWith('--- ') && !(lines[i] as string).startsWith('diff --git ')) {
        const l = lines[i] as string;
        if (l.startsWith('new file mode ')) {
          created = true;
          newMode = gitFileMode(l.slice(14), i + 1);
        } else if (l.startsWith('new mode ')) newMode = gitFileMode(l.slice(9), i + 1);
        else if (l.startsWith('deleted file mode ')) deleted = true;
        else if (l.startsWith('rename from ') || l.startsWith('copy from ')) {
          throw new ToolgateError('unsupported', 'renames and copies in a unified diff are not applied; use fs.rename', { line: i + 1 });
        } else if (l.startsWith('Binary files ') || l.startsWith('GIT binary patch')) {
          throw new ToolgateError('unsupported', 'binary patches are not applied; use fs.write with base64', { line: i + 1 });
        }
        i++;
      }
      if (i >= lines.length || (lines[i] as string).startsWith('diff --git ')) {
        if (created || deleted || newMode !== null) {
          throw new ToolgateError('unsupported', 'a mode change or empty file without hunks is not applied; use fs.write', { line: i });
        }
        continue;
      }
    }
    const minus = lines[i] as string;
    const plus = lines[i + 1];
    if (plus === undefined || !plus.startsWith('+++ ')) throw fault(i + 2, 'expected a +++ line after ---');
    const oldPath = headerPath(minus.slice(4), 'a/', git, i + 1);
    const newPath = headerPath(plus.slice(4), 'b/', git, i + 2);
    if (oldPath === null && newPath === null) throw fault(i + 1, 'both sides are /dev/null');
    if (oldPath !== null && newPath !== null && oldPath !== newPath) {
      throw new ToolgateError('unsupported', 'renames in a unified diff are not applied; use fs.rename', { line: i + 1, from: oldPath, to: newPath });
    }
    i += 2;
    const hunks: Hunk[] = [];
    while (i < lines.length && (lines[i] as string).startsWith('@@')) {
      const m = HUNK_RE.exec(lines[i] as string);
      if (!m) throw fault(i + 1, 'malformed hunk header');
      const oldLines = m[2] === undefined ? 1 : Number(m[2]);
      const newLines = m[4] === undefined ? 1 : Number(m[4]);
      const body: HunkLine[] = [];
      let o = 0;
      let n = 0;
      let oldNoNewline = false;
      let newNoNewline = false;
      i++;
      while (o < oldLines || n < newLines || (i < lines.length && (lines[i] as string).startsWith('\\'))) {
        const l = lines[i];
        if (l === undefined) throw fault(i, 'hunk ends early');
        if (l.startsWith('\\')) {
          const last = body[body.length - 1];
          if (!last) throw fault(i + 1, 'no-newline marker before any line');
          if (last.op !== '+') oldNoNewline = true;
          if (last.op !== '-') newNoNewline = true;
          i++;
          continue;
        }
        if (o >= oldLines && n >= newLines) break;
        const op = l === '' ? ' ' : l[0];
        if (op !== ' ' && op !== '-' && op !== '+') throw fault(i + 1, 'hunk line must start with space, - or +');
        body.push({ op, text: l.slice(1) });
        if (op !== '+') o++;
        if (op !== '-') n++;
        if (o > oldLines || n > newLines) throw fault(i + 1, 'hunk has more lines than its header says');
        i++;
      }
      hunks.push({ oldStart: Number(m[1]), oldLines, newStart: Number(m[3]), newLines, section: m[5] ?? '', lines: body, oldNoNewline, newNoNewline });
    }
    if (hunks.length === 0) throw fault(i, 'a file header without hunks');
    out.push({ oldPath, newPath, newMode, hunks });
  }
  if (out.length === 0) throw fault(1, 'no file changes found');
  return out;
}
