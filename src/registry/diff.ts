// `registry diff`: what changed between two manifests, each change classified as compatible or
// breaking for callers of the old one. The rules are in docs/registry.md ("Compatibility diff").
import { effectRank } from '../protocol/index.js';
import { REGISTRY_DIFF_FORMAT, type ChangeKind, type ChangeSeverity, type ManifestDiff, type RegistryChange, type SchemaSide } from './change.js';
import { compareVersions, type Manifest, type ManifestEntry } from './manifest.js';
import { diffSchemas } from './schema-diff.js';

export interface DiffOptions {
  /** Epoch ms; a retired version whose migration window ended before this may be removed. */
  readonly now?: number;
}

interface Pair {
  readonly from: ManifestEntry;
  readonly to: ManifestEntry;
}

class ChangeList {
  readonly items: RegistryChange[] = [];

  entry(pair: Pair, kind: ChangeKind, severity: ChangeSeverity, message: string, before?: unknown, after?: unknown): void {
    this.items.push({
      tool: pair.to.name,
      from_version: pair.from.version,
      to_version: pair.to.version,
      kind,
      severity,
      schema: null,
      field: null,
      pointer: null,
      message,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    });
  }

  version(entry: ManifestEntry, side: 'added' | 'removed', kind: ChangeKind, severity: ChangeSeverity, message: string): void {
    this.items.push({
      tool: entry.name,
      from_version: side === 'removed' ? entry.version : null,
      to_version: side === 'added' ? entry.version : null,
      kind,
      severity,
      schema: null,
      field: null,
      pointer: null,
      message,
    });
  }
}

function latestOf(entries: readonly ManifestEntry[]): ManifestEntry | undefined {
  return entries.filter((e) => e.deprecation.state !== 'retired').sort((a, b) => compareVersions(b.version, a.version))[0];
}

function groupByName(m: Manifest): Map<string, ManifestEntry[]> {
  const out = new Map<string, ManifestEntry[]>();
  for (const e of m.tools) {
    const list = out.get(e.name) ?? [];
    list.push(e);
    out.set(e.name, list);
  }
  return out;
}

function schemaChanges(out: ChangeList, pair: Pair, side: SchemaSide): void {
  const key = side === 'request' ? 'request_schema' : 'response_schema';
  for (const f of diffSchemas(side, pair.from[key], pair.to[key])) {
    out.items.push({
      tool: pair.to.name,
      from_version: pair.from.version,
      to_version: pair.to.version,
      kind: f.kind,
      severity: f.severity,
      schema: side,
      field: f.field,
      pointer: f.pointer,
      message: f.message,
      ...(f.before === undefined ? {} : { before: f.before }),
      ...(f.after === undefined ? {} : { after: f.after }),
    });
  }
}

/**
 * Compares two entries. `sameVersion` is false when comparing what an unpinned caller resolved
 * before and after (different versions): their implementation and lifecycle naturally differ.
 */
function entryChanges(out: ChangeList, pair: Pair, sameVersion: boolean): void {
  const { from, to } = pair;
  if (from.description !== to.description) out.entry(pair, 'description_changed', 'compatible', 'description changed', from.description, to.description);
  if (from.owner !== to.owner) out.entry(pair, 'owner_changed', 'compatible', `owner ${from.owner} → ${to.owner}`, from.owner, to.owner);
  if (sameVersion && from.implementation_digest !== to.implementation_digest) {
    out.entry(pair, 'implementation_changed', 'compatible', 'implementation changed under the same version', from.implementation_digest, to.implementation_digest);
  }

  if (from.effect_class !== to.effect_class) {
    const a = effectRank(from.effect_class);
    const b = effectRank(to.effect_class);
    const msg = `effect class ${from.effect_class} → ${to.effect_class}`;
    if (b > a) out.entry(pair, 'effect_class_widened', 'breaking', msg, from.effect_class, to.effect_class);
    else if (b < a) out.entry(pair, 'effect_class_narrowed', 'compatible', msg, from.effect_class, to.effect_class);
    // Two different irreversible external effects: grants and approvals written for one do not cover the other.
    else out.entry(pair, 'effect_class_changed', 'breaking', msg, from.effect_class, to.effect_class);
  }
  if (from.reversible !== to.reversible) {
    if (from.reversible) out.entry(pair, 'reversibility_lost', 'breaking', 'no longer reversible', true, false);
    else out.entry(pair, 'reversibility_gained', 'compatible', 'now reversible', false, true);
  }
  // The capability dimensions are the tool's default scope: a new one asks grants for more.
  const addedCaps = to.capabilities.filter((c) => !from.capabilities.includes(c));
  const removedCaps = from.capabilities.filter((c) => !to.capabilities.includes(c));
  if (addedCaps.length > 0) out.entry(pair, 'capability_added', 'breaking', `now requires ${addedCaps.join(', ')}`, undefined, addedCaps);
  if (removedCaps.length > 0) out.entry(pair, 'capability_removed', 'compatible', `no longer requires ${removedCaps.join(', ')}`, removedCaps, undefined);

  if (to.timeout_ms < from.timeout_ms) out.entry(pair, 'timeout_lowered', 'breaking', `default timeout ${from.timeout_ms} → ${to.timeout_ms} ms`, from.timeout_ms, to.timeout_ms);
  if (to.timeout_ms > from.timeout_ms) out.entry(pair, 'timeout_raised', 'compatible', `default timeout ${from.timeout_ms} → ${to.timeout_ms} ms`, from.timeout_ms, to.timeout_ms);
  if (to.max_output_bytes < from.max_output_bytes) {
    out.entry(pair, 'output_limit_lowered', 'breaking', `maximum output ${from.max_output_bytes} → ${to.max_output_bytes} bytes`, from.max_output_bytes, to.max_output_bytes);
  }
  if (to.max_output_bytes > from.max_output_bytes) {
    out.entry(pair, 'output_limit_raised', 'compatible', `maximum output ${from.max_output_bytes} → ${to.max_output_bytes} bytes`, from.max_output_bytes, to.max_output_bytes);
  }
  if (from.cancellation !== to.cancellation) {
    const severity: ChangeSeverity = to.cancellation === 'uninterruptible' ? 'breaking' : 'compatible';
    out.entry(pair, 'cancellation_changed', severity, `cancellation ${from.cancellation} → ${to.cancellation}`, from.cancellation, to.cancellation);
  }
  if (from.idempotency !== to.idempotency) {
    const msg = `idempotency ${from.idempotency} → ${to.idempotency}`;
    if (to.idempotency === 'reconcile') out.entry(pair, 'idempotency_weakened', 'breaking', msg, from.idempotency, to.idempotency);
    else out.entry(pair, 'idempotency_strengthened', 'compatible', msg, from.idempotency, to.idempotency);
  }
  const droppedFields = from.redaction.fields.filter((f) => !to.redaction.fields.includes(f));
  const addedFields = to.redaction.fields.filter((f) => !from.redaction.fields.includes(f));
  if (droppedFields.length > 0 || (from.redaction.patterns && !to.redaction.patterns)) {
    out.entry(pair, 'redaction_weakened', 'breaking', 'redaction covers less', from.redaction, to.redaction);
  } else if (addedFields.length > 0 || (!from.redaction.patterns && to.redaction.patterns)) {
    out.entry(pair, 'redaction_strengthened', 'compatible', 'redaction covers more', from.redaction, to.redaction);
  }
  if (sameVersion && JSON.stringify(from.deprecation) !== JSON.stringify(to.deprecation)) {
    const retiredNow = to.deprecation.state === 'retired' && from.deprecation.state !== 'retired';
    out.entry(pair, 'deprecation_changed', retiredNow ? 'breaking' : 'compatible', `lifecycle ${from.deprecation.state} → ${to.deprecation.state}`, from.deprecation, to.deprecation);
  }

  schemaChanges(out, pair, 'request');
  schemaChanges(out, pair, 'response');
}

/** Every difference between two manifests, each classified; `breaking` when any change is. */
export function diffManifests(oldManifest: Manifest, newManifest: Manifest, options: DiffOptions = {}): ManifestDiff {
  const now = options.now ?? Date.now();
  const out = new ChangeList();
  const oldByName = groupByName(oldManifest);
  const newByName = groupByName(newManifest);
  const names = [...new Set([...oldByName.keys(), ...newByName.keys()])].sort();

  for (const name of names) {
    const olds = oldByName.get(name) ?? [];
    const news = newByName.get(name) ?? [];
    for (const from of olds) {
      const to = news.find((e) => e.version === from.version);
      if (to) {
        entryChanges(out, { from, to }, true);
        continue;
      }
      const d = from.deprecation;
      const windowOver = d.state === 'retired' && now >= Date.parse(d.migration_window_ends);
      const kind: ChangeKind = news.length === 0 ? 'tool_removed' : 'tool_version_removed';
      if (windowOver) out.version(from, 'removed', kind, 'compatible', `${name}@${from.version} removed after its migration window ended`);
      else out.version(from, 'removed', kind, 'breaking', `${name}@${from.version} removed: tasks pinned to it can no longer call it`);
    }
    for (const to of news) {
      if (olds.some((e) => e.version === to.version)) continue;
      if (olds.length === 0) out.version(to, 'added', 'tool_added', 'compatible', `new tool ${name}@${to.version}`);
      else out.version(to, 'added', 'tool_version_added', 'compatible', `new version ${name}@${to.version}`);
    }
    // A caller that names no version gets the newest non-retired one: if that moved, compare
    // what it got before with what it gets now.
    const oldLatest = latestOf(olds);
    const newLatest = latestOf(news);
    if (oldLatest && newLatest && oldLatest.version !== newLatest.version) {
      entryChanges(out, { from: oldLatest, to: newLatest }, false);
    }
  }
  return {
    format: REGISTRY_DIFF_FORMAT,
    old_revision: oldManifest.revision,
    new_revision: newManifest.revision,
    breaking: out.items.some((c) => c.severity === 'breaking'),
    changes: out.items,
  };
}
