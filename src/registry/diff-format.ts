import type { ManifestDiff, RegistryChange } from './change.js';

function heading(c: RegistryChange): string {
  if (c.from_version === null) return `${c.tool}@${c.to_version ?? '?'}`;
  if (c.to_version === null || c.from_version === c.to_version) return `${c.tool}@${c.from_version}`;
  return `${c.tool} ${c.from_version} → ${c.to_version} (callers that name no version)`;
}

/** The diff for people: one block per tool version, breaking changes first, then a verdict line. */
export function formatDiff(diff: ManifestDiff): string {
  if (diff.changes.length === 0) return `no changes (${diff.old_revision} → ${diff.new_revision})\n`;
  const groups = new Map<string, RegistryChange[]>();
  for (const c of diff.changes) {
    const h = heading(c);
    const list = groups.get(h) ?? [];
    list.push(c);
    groups.set(h, list);
  }
  const lines: string[] = [];
  for (const [h, changes] of groups) {
    lines.push(h);
    const ordered = [...changes.filter((c) => c.severity === 'breaking'), ...changes.filter((c) => c.severity === 'compatible')];
    for (const c of ordered) lines.push(`  ${c.severity === 'breaking' ? 'BREAKING  ' : 'compatible'}  ${c.kind}  ${c.message}`);
  }
  const breaking = diff.changes.filter((c) => c.severity === 'breaking').length;
  const compatible = diff.changes.length - breaking;
  lines.push('');
  lines.push(
    breaking > 0
      ? `${breaking} breaking, ${compatible} compatible change${compatible === 1 ? '' : 's'}`
      : `compatible: ${compatible} change${compatible === 1 ? '' : 's'}, none breaking`,
  );
  return `${lines.join('\n')}\n`;
}
