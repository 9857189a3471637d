// The text of Toolgate's file changes: what changed, in a line a model can check, and for
// fs.patch the unified diff itself (as text, not JSON-escaped), so the model sees its edit.

type Data = Readonly<Record<string, unknown>>;

const has = (r: unknown, ...keys: string[]): r is Data => typeof r === 'object' && r !== null && keys.every((k) => k in r);
const bytes = (n: number): string => `${n.toLocaleString('en-US')} ${n === 1 ? 'byte' : 'bytes'}`;

function patchText(r: Data): string {
  const files = (Array.isArray(r['files']) ? r['files'] : []) as Data[];
  const lines = [`fs.patch applied: ${files.length} ${files.length === 1 ? 'file' : 'files'}, revision ${String(r['revision'])}`];
  for (const f of files) {
    const edits = (Array.isArray(f['edits']) ? f['edits'] : []) as Data[];
    const where = edits.map((e) => {
      const span =
        e['match'] === 'insert'
          ? `inserted after line ${String(e['start_line'])}`
          : e['start_line'] === e['end_line']
            ? `line ${String(e['start_line'])}`
            : `lines ${String(e['start_line'])}-${String(e['end_line'])}`;
      const how = e['match'] === 'whitespace' ? ' (matched ignoring whitespace)' : Number(e['occurrences']) > 1 ? ` (${String(e['occurrences'])} occurrences)` : '';
      return `edit ${String(e['edit'])}: ${span}${how}`;
    });
    const hunks = Number(f['hunks']);
    lines.push(`${String(f['status'])} ${String(f['path'])}: ${hunks} ${hunks === 1 ? 'hunk' : 'hunks'}${where.length ? `; ${where.join(', ')}` : ''}`);
  }
  const diff = String(r['diff']);
  if (diff !== '') lines.push(diff.replace(/\n$/, ''));
  return lines.join('\n');
}

/** The text of a change's result, or null when the result is not one of these tools'. */
export function mutationText(tool: string, r: Data): string | null {
  if (tool === 'fs.patch' && has(r, 'files', 'diff', 'revision')) return patchText(r);
  if (tool === 'fs.write' && has(r, 'path', 'created', 'sha256', 'size')) {
    const dirs = (Array.isArray(r['created_dirs']) ? r['created_dirs'] : []) as string[];
    const what = r['created'] === true ? 'created' : `replaced (previous sha256 ${String(r['previous_sha256'])})`;
    return `fs.write ${String(r['path'])}: ${what}; now ${bytes(Number(r['size']))}, sha256 ${String(r['sha256'])}, mode ${String(r['mode'])}${
      dirs.length ? `; created directories ${dirs.join(', ')}` : ''
    }; revision ${String(r['revision'])}`;
  }
  if (tool === 'fs.delete' && has(r, 'path', 'kind', 'entries_removed')) {
    const n = Number(r['entries_removed']);
    return `fs.delete ${String(r['path'])}: removed the ${String(r['kind'])}${r['kind'] === 'directory' ? ` and ${n} ${n === 1 ? 'entry' : 'entries'} in it` : ''} (git: ${String(r['git'])}); revision ${String(r['revision'])}`;
  }
  if (tool === 'fs.rename' && has(r, 'from', 'to', 'kind')) {
    return `fs.rename ${String(r['from'])} -> ${String(r['to'])}: moved the ${String(r['kind'])}${r['overwritten'] === true ? ', replacing what was there' : ''}; revision ${String(r['revision'])}`;
  }
  if (tool === 'fs.undo' && has(r, 'undone_receipt', 'restored')) {
    const restored = r['restored'] as string[];
    return `fs.undo: reverted receipt ${String(r['undone_receipt'])}; restored ${restored.length ? restored.join(', ') : 'nothing'}; revision ${String(r['revision'])}`;
  }
  return null;
}
