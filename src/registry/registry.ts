import { StartupError, ToolgateError, type Digest } from '../protocol/index.js';
import type { AnyTool, DeprecationState } from './define.js';
import { diffManifests } from './diff.js';
import { buildManifest, compareVersions, entryOf, type Manifest, type ManifestEntry } from './manifest.js';
import { Rollout, inCanary } from './rollout.js';

export interface Resolved {
  readonly tool: AnyTool;
  readonly entry: ManifestEntry;
}

/**
 * Every tool version this runtime can run, retired ones included. Its revision is the digest
 * of all entries. Tasks resolve against the manifest they pinned at their first call.
 *
 * The set can change while the runtime runs: an upstream MCP server's tool whose description or
 * schema changed replaces its entry (`replace`), which makes a new revision. Tasks pinned to the
 * old revision keep resolving the entry they pinned, and reach the new implementation only while
 * the change is compatible for them (`resolve`).
 *
 * A rollout (docs/registry.md#rollout) decides what a new task pins: a canary version only in
 * the manifest of tasks in its share, a retired version marked retired from its date on.
 */
export class Registry {
  readonly #byKey = new Map<string, AnyTool>();
  #manifest: Manifest;
  /** Whether a pinned entry may be served by the implementation that replaced it, per pair of digests. */
  readonly #compatible = new Map<string, readonly string[]>();
  readonly #rollout: Rollout;
  /** The manifests new tasks pin under the rollout, by what the rollout changed; cleared by `replace`. */
  readonly #views = new Map<string, Manifest>();

  constructor(tools: readonly AnyTool[], rollout: Rollout = new Rollout()) {
    for (const tool of tools) {
      if (this.#byKey.has(tool.key)) throw new TypeError(`tool ${tool.key} registered twice`);
      this.#byKey.set(tool.key, tool);
    }
    this.#manifest = buildManifest(tools.map(entryOf));
    this.#rollout = rollout;
    this.#checkRollout();
  }

  /** A rollout key that matches no tool, or a canary version no tool has, is a configuration fault. */
  #checkRollout(): void {
    const faults: { pointer: string; message: string }[] = [];
    for (const key of this.#rollout.keys()) {
      const matched = this.#manifest.tools.filter((e) => this.#rollout.ruleOf(e.name)?.key === key);
      if (matched.length === 0) faults.push({ pointer: `/rollout/${key}`, message: `no tool of this registry is ${key}` });
      const canary = this.#rollout.ruleOf(matched[0]?.name ?? '')?.rule.canary;
      if (canary && !matched.some((e) => e.version === canary.version)) faults.push({ pointer: `/rollout/${key}/canary/version`, message: `no tool of ${key} has version ${canary.version}` });
    }
    if (faults.length > 0) {
      throw new StartupError('invalid_config', `invalid rollout: ${faults.map((f) => `${f.pointer}: ${f.message}`).join('; ')}`, { file: '(rollout)', reason: 'schema', faults });
    }
  }

  /**
   * The manifest a task pins at its first call: this registry's, without canary versions the task
   * is not in, and with the configured lifecycle (deprecated, retired) of each version at `now`.
   */
  manifestFor(task: string, now: number): Manifest {
    if (this.#rollout.empty) return this.#manifest;
    const entries: ManifestEntry[] = [];
    const changed: string[] = [];
    for (const e of this.#manifest.tools) {
      const found = this.#rollout.ruleOf(e.name);
      const canary = found?.rule.canary;
      if (found && canary?.version === e.version && !inCanary(task, found.key, e.version, canary.share)) {
        changed.push(`-${e.name}@${e.version}`);
        continue;
      }
      const life = this.#rollout.lifecycleAt(e.name, e.version, now);
      if (life === undefined) entries.push(e);
      else {
        changed.push(`${e.name}@${e.version}:${life.state}`);
        entries.push({ ...e, deprecation: life });
      }
    }
    const key = changed.join('\n');
    let view = this.#views.get(key);
    if (view === undefined) {
      view = changed.length === 0 ? this.#manifest : buildManifest(entries);
      this.#views.set(key, view);
    }
    return view;
  }

  /** What a task with this manifest is listed: the newest non-retired version of each name. */
  currentOf(manifest: Manifest): ManifestEntry[] {
    const best = new Map<string, ManifestEntry>();
    for (const e of manifest.tools) {
      if (e.deprecation.state === 'retired') continue;
      const prev = best.get(e.name);
      if (!prev || compareVersions(e.version, prev.version) > 0) best.set(e.name, e);
    }
    return [...best.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  get manifest(): Manifest {
    return this.#manifest;
  }

  get revision(): Digest {
    return this.#manifest.revision;
  }

  /**
   * Replaces the entries of these tools (same name@version) and adds new ones: a new revision.
   * New tasks pin it; tasks pinned before keep their revision (see `resolve`).
   */
  replace(tools: readonly AnyTool[]): { readonly before: Manifest; readonly after: Manifest } {
    const before = this.#manifest;
    for (const tool of tools) this.#byKey.set(tool.key, tool);
    this.#manifest = buildManifest([...this.#byKey.values()].map(entryOf));
    this.#views.clear();
    return { before, after: this.#manifest };
  }

  tools(): AnyTool[] {
    return [...this.#byKey.values()];
  }

  /** Tools a new task may call: the newest non-retired version of each name. */
  current(): AnyTool[] {
    const best = new Map<string, AnyTool>();
    for (const t of this.#byKey.values()) {
      if (t.deprecation.state === 'retired') continue;
      const prev = best.get(t.name);
      if (!prev || compareVersions(t.version, prev.version) > 0) best.set(t.name, t);
    }
    return [...best.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /**
   * Resolves `name[@version]` in a pinned manifest. A version missing from the pin (a canary the
   * task is not in) or whose code this runtime no longer has is unavailable; one retired before
   * the task pinned, or retired since and past its window, is `tool_version_retired`.
   */
  resolve(name: string, version: string | undefined, pinned: Manifest, now: number): Resolved {
    const candidates = pinned.tools.filter((e) => e.name === name);
    if (candidates.length === 0) {
      throw new ToolgateError('unknown_tool', `no tool named ${name}`, {
        tool: name,
        registry_revision: pinned.revision,
        known: [...new Set(pinned.tools.map((e) => e.name))],
      });
    }
    const available = candidates.filter((e) => e.deprecation.state !== 'retired').map((e) => e.version);
    let entry: ManifestEntry | undefined;
    if (version === undefined) {
      entry = candidates
        .filter((e) => e.deprecation.state !== 'retired')
        .sort((a, b) => compareVersions(b.version, a.version))[0];
      // Every version retired: the refusal names the newest.
      entry ??= [...candidates].sort((a, b) => compareVersions(b.version, a.version))[0];
    } else {
      entry = candidates.find((e) => e.version === version);
    }
    const unavailable = (why: string): ToolgateError =>
      new ToolgateError('tool_version_unavailable', `${name}@${version ?? 'latest'} is unavailable: ${why}`, { tool: name, version: version ?? null, reason: why, registry_revision: pinned.revision, available });
    const retired = (e: ManifestEntry, life: DeprecationState & { state: 'retired' }, reason: 'retired_before_pin' | 'window_ended'): ToolgateError =>
      new ToolgateError(
        'tool_version_retired',
        `${name}@${e.version} is retired${reason === 'window_ended' ? ` and its deprecation window ended at ${life.migration_window_ends}` : ' for tasks started after its retirement'}${life.replacement !== undefined ? `; use ${life.replacement}` : ''}`,
        { tool: name, version: e.version, reason, retired_at: life.retired_at ?? null, window_ends: life.migration_window_ends, replacement: life.replacement ?? null, registry_revision: pinned.revision, available },
      );
    if (!entry) {
      const canary = this.#rollout.ruleOf(name)?.rule.canary;
      throw unavailable(canary !== undefined && canary.version === version ? `a canary version (share ${canary.share}) this task is not in` : 'version not in the pinned registry revision');
    }
    if (entry.deprecation.state === 'retired') throw retired(entry, entry.deprecation, 'retired_before_pin');
    const tool = this.#byKey.get(`${entry.name}@${entry.version}`);
    if (!tool) throw unavailable('this runtime no longer has the implementation');
    // Replaced since the task pinned it (an upstream tool that changed): served only while the
    // change is compatible for a caller of the pinned entry.
    if (tool.implementation_digest !== entry.implementation_digest) {
      const breaking = this.#breakingChanges(entry, tool);
      if (breaking.length > 0) throw unavailable(`changed incompatibly since this task pinned it (${breaking.join(', ')})`);
    }
    // Retired since the task pinned it (by its code or the rollout): usable until the window ends.
    const current = this.#rollout.lifecycleAt(entry.name, entry.version, now) ?? tool.deprecation;
    if (current.state === 'retired' && now >= Date.parse(current.migration_window_ends)) throw retired(entry, current, 'window_ended');
    return { tool, entry };
  }

  #breakingChanges(pinned: ManifestEntry, tool: AnyTool): readonly string[] {
    const key = `${pinned.implementation_digest}\u0000${tool.implementation_digest}`;
    let found = this.#compatible.get(key);
    if (found === undefined) {
      const diff = diffManifests(buildManifest([pinned]), buildManifest([entryOf(tool)]));
      found = [...new Set(diff.changes.filter((c) => c.severity === 'breaking').map((c) => c.kind))];
      this.#compatible.set(key, found);
    }
    return found;
  }
}
