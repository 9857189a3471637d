import { ToolgateError, type Digest } from '../protocol/index.js';
import type { AnyTool } from './define.js';
import { diffManifests } from './diff.js';
import { buildManifest, compareVersions, entryOf, type Manifest, type ManifestEntry } from './manifest.js';

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
 */
export class Registry {
  readonly #byKey = new Map<string, AnyTool>();
  #manifest: Manifest;
  /** Whether a pinned entry may be served by the implementation that replaced it, per pair of digests. */
  readonly #compatible = new Map<string, readonly string[]>();

  constructor(tools: readonly AnyTool[]) {
    for (const tool of tools) {
      if (this.#byKey.has(tool.key)) throw new TypeError(`tool ${tool.key} registered twice`);
      this.#byKey.set(tool.key, tool);
    }
    this.#manifest = buildManifest(tools.map(entryOf));
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
   * Resolves `name[@version]` in a pinned manifest. A version missing from the pin, whose code
   * this runtime no longer has, or retired past its migration window is unavailable.
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
    let entry: ManifestEntry | undefined;
    if (version === undefined) {
      entry = candidates
        .filter((e) => e.deprecation.state !== 'retired')
        .sort((a, b) => compareVersions(b.version, a.version))[0];
    } else {
      entry = candidates.find((e) => e.version === version);
    }
    const unavailable = (why: string): ToolgateError =>
      new ToolgateError('tool_version_unavailable', `${name}@${version ?? 'latest'} is unavailable: ${why}`, {
        tool: name,
        version: version ?? null,
        reason: why,
        registry_revision: pinned.revision,
        available: candidates.filter((e) => e.deprecation.state !== 'retired').map((e) => e.version),
      });
    if (!entry) throw unavailable(version === undefined ? 'every version is retired' : 'version not in the pinned registry revision');
    if (entry.deprecation.state === 'retired') throw unavailable('retired before this task pinned its registry');
    const tool = this.#byKey.get(`${entry.name}@${entry.version}`);
    if (!tool) throw unavailable('this runtime no longer has the implementation');
    // Replaced since the task pinned it (an upstream tool that changed): served only while the
    // change is compatible for a caller of the pinned entry.
    if (tool.implementation_digest !== entry.implementation_digest) {
      const breaking = this.#breakingChanges(entry, tool);
      if (breaking.length > 0) throw unavailable(`changed incompatibly since this task pinned it (${breaking.join(', ')})`);
    }
    // Retired since the task pinned it: usable until the migration window ends.
    const current = tool.deprecation;
    if (current.state === 'retired' && now >= Date.parse(current.migration_window_ends)) throw unavailable('retired and its migration window has ended');
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
