// The listing as a model reads it: one line per entry, indented two spaces per level under the
// listed directory, `/` after a directory, the size of a file, `-> target` after a link; a
// header with what was omitted and a footer with what is left and how to continue.
import type { FsListResult, ListEntry, OmittedCounts } from './schema.js';

function lineOf(e: ListEntry): string {
  const name = e.path.slice(e.path.lastIndexOf('/') + 1);
  const indent = '  '.repeat(e.depth);
  switch (e.type) {
    case 'directory':
      return `${indent}${name}/`;
    case 'file':
      return `${indent}${name}  ${e.size ?? 0} B`;
    case 'other':
      return `${indent}${name}  (special file)`;
    case 'symlink': {
      if (e.target_hidden === 'outside_workspace') return `${indent}${name} -> (link out of the workspace, not followed)`;
      if (e.target_hidden === 'secret') return `${indent}${name} -> (link to a secret path, not shown)`;
      if (e.target == null) return `${indent}${name} -> (dangling link)`;
      if (e.target_type === 'missing') return `${indent}${name} -> ${e.target}  (dangling link)`;
      return `${indent}${name} -> ${e.target}${e.target_type === 'directory' ? '/' : ''}  (link)`;
    }
  }
}

function omittedText(o: OmittedCounts): string {
  const parts = [
    o.ignored ? `${o.ignored} ignored by .gitignore (include_ignored: true lists them)` : '',
    o.generated ? `${o.generated} generated (node_modules/, dist/; include_generated: true lists them)` : '',
    o.secret ? `${o.secret} secret (never listed)` : '',
  ].filter(Boolean);
  return parts.length ? `; omitted: ${parts.join(', ')}` : '';
}

export function renderListing(r: Omit<FsListResult, 'text'>): string {
  const head = `${r.path === '.' ? './' : `${r.path}/`}  (${r.entries.length} ${r.entries.length === 1 ? 'entry' : 'entries'}, depth ${r.depth}${omittedText(r.omitted)})`;
  const lines = [head, ...r.entries.map(lineOf)];
  if (r.entries.length === 0) lines.push('  (empty)');
  if (r.truncated) {
    lines.push(`… ${r.more_exact ? '' : 'at least '}${r.more} more entries not shown; call fs.list again with "continuation": ${JSON.stringify(r.continuation)} (or a smaller depth or a subdirectory path)`);
  }
  return lines.join('\n');
}
