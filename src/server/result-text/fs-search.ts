// fs.search as text, in the formats models know from ripgrep and grep: `path:line:text` for a
// match, `path-line-text` for a context line, one path per line for paths_only, `path:count` for
// count_only. Symbols add their span, kind and container. Then how the page ends: what was
// skipped and why, and how to continue a truncated page.

type Data = Readonly<Record<string, unknown>>;

interface Match {
  readonly path: string;
  readonly line: number;
  readonly text: string;
  readonly end_line?: number;
  readonly kind?: string;
  readonly container?: string;
  readonly context?: { readonly before: readonly string[]; readonly after: readonly string[] };
}

export function isFsSearchResult(result: unknown): result is Data {
  return typeof result === 'object' && result !== null && 'skipped' in result && 'engine' in result && 'truncation_reason' in result;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function matchLines(m: Match, mode: string): string[] {
  if (mode === 'filename') return [m.path];
  if (mode === 'symbol') {
    const span = m.end_line !== undefined && m.end_line !== m.line ? `${m.line}-${m.end_line}` : `${m.line}`;
    const what = [m.kind, m.container !== undefined ? `in ${m.container}` : undefined].filter((x) => x !== undefined).join(' ');
    return [`${m.path}:${span}:${m.text}${what ? `  [${what}]` : ''}`];
  }
  const before = m.context?.before ?? [];
  const after = m.context?.after ?? [];
  return [
    ...before.map((t, i) => `${m.path}-${m.line - before.length + i}-${t}`),
    // A match that goes on past its first line (multiline regex, structural) names its last line too.
    m.end_line !== undefined && m.end_line !== m.line ? `${m.path}:${m.line}-${m.end_line}:${m.text}` : `${m.path}:${m.line}:${m.text}`,
    ...after.map((t, i) => `${m.path}-${m.line + 1 + i}-${t}`),
  ];
}

function skippedLine(skipped: Data): string | null {
  const parts: string[] = [];
  const n = (k: string): number => Number(skipped[k] ?? 0);
  if (n('ignored') > 0) parts.push(`${n('ignored')} ignored by .gitignore (include_ignored: true searches them)`);
  if (n('generated') > 0) parts.push(`${n('generated')} generated (include_generated: true searches them)`);
  if (n('binary') > 0) parts.push(`${n('binary')} binary`);
  if (n('secret') > 0) parts.push(`${n('secret')} secret (never searched)`);
  return parts.length ? `skipped files: ${parts.join('; ')}` : null;
}

export function fsSearchText(r: Data, args: Data): string {
  const mode = String(r['mode']);
  const output = String(r['output']);
  const query = typeof args['query'] === 'string' ? args['query'] : '';
  const matches = (Array.isArray(r['matches']) ? r['matches'] : []) as Match[];
  const paths = (Array.isArray(r['paths']) ? r['paths'] : []) as string[];
  const counts = (Array.isArray(r['counts']) ? r['counts'] : []) as { path: string; count: number }[];
  const total = typeof r['total'] === 'number' ? r['total'] : null;
  const truncated = r['truncated'] === true;

  const body: string[] = [];
  let shown: string;
  if (output === 'paths_only') {
    body.push(...paths);
    shown = plural(paths.length, 'file');
  } else if (output === 'count_only') {
    body.push(...counts.map((c) => `${c.path}:${c.count}`));
    const sum = counts.reduce((s, c) => s + c.count, 0);
    shown = `${plural(sum, 'match', 'matches')} in ${plural(counts.length, 'file')}`;
  } else {
    for (const m of matches) body.push(...matchLines(m, mode));
    const files = new Set(matches.map((m) => m.path)).size;
    shown = mode === 'filename' ? plural(matches.length, 'file') : `${plural(matches.length, 'match', 'matches')} in ${plural(files, 'file')}`;
  }
  const of = truncated ? (total !== null ? ` (of ${total.toLocaleString('en-US')})` : ' (more not counted)') : '';
  const head = `fs.search ${mode} ${JSON.stringify(query)}`;
  const lines = [body.length === 0 ? `${head}: no matches` : `${head}: ${shown}${of}:`];
  lines.push(...body);
  const skipped = skippedLine((r['skipped'] ?? {}) as Data);
  if (skipped) lines.push(skipped);
  if (truncated) {
    const continuation = typeof r['continuation'] === 'string' ? r['continuation'] : null;
    const why = r['truncation_reason'] === 'timeout' ? 'the search ran out of time' : r['truncation_reason'] === 'max_bytes' ? 'max_bytes was reached' : 'max_results was reached';
    lines.push(
      continuation !== null
        ? `[truncated: ${why}. For the next page, call fs_search again with the same arguments and "continuation":${JSON.stringify(continuation)}]`
        : `[truncated: ${why}; narrow the query or the include globs]`,
    );
  }
  return lines.join('\n');
}
