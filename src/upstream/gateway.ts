// Toolgate in front of other MCP servers: every configured upstream started and listed at open,
// each listed tool a registry entry (manifested, or unclassified behind approval, or refused),
// and every later change of a listing a new registry revision, recorded with its diff.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import type { AnyTool, Manifest } from '../registry/index.js';
import { diffManifests } from '../registry/index.js';
import { StartupError } from '../protocol/index.js';
import { namespaceOf, type UpstreamConfig } from './config.js';
import { UpstreamConnection, type ListingCause } from './connection.js';
import type { LaunchContext } from './launch.js';
import { declarationDigest, registryNameOf, upstreamToolEntry } from './tool-entry.js';

export interface GatewayOptions {
  readonly upstreams: Readonly<Record<string, UpstreamConfig>>;
  /** Paths no upstream may see (the workspace, the state dir). */
  readonly hide: readonly string[];
  /** The workspace an upstream with `workspace: "read-only"` is shown. */
  readonly workspace?: LaunchContext['workspace'];
  /** Where `from_env` values are read. Default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Drift records and the manifests they compare go to `<stateDir>/gateway/`. */
  readonly stateDir: string;
}

/** The registry as the gateway changes it. */
export interface RevisionTarget {
  readonly manifest: Manifest;
  replace(tools: readonly AnyTool[]): { readonly before: Manifest; readonly after: Manifest };
}

/** One change of an upstream's listing, as recorded in `<stateDir>/gateway/drift.jsonl`. */
export interface DriftRecord {
  readonly at: string;
  readonly upstream: string;
  readonly cause: ListingCause;
  /** Registry names whose entry was replaced. */
  readonly changed: readonly string[];
  /** Upstream tools listed now that were not at open: not admitted until a restart (the Cedar schema is built at open). */
  readonly added_not_admitted: readonly string[];
  /** Upstream tools no longer listed: calls to them fail `upstream_unavailable` (`tool_gone`). */
  readonly removed: readonly string[];
  readonly before_revision: string;
  readonly after_revision: string;
  /** Manifest exports `toolgate registry diff` compares. */
  readonly before_file: string;
  readonly after_file: string;
  readonly breaking: boolean;
}

export interface UpstreamStatus {
  readonly name: string;
  readonly tools: readonly string[];
  /** Tools without a manifest under `unmanifested: "refuse"`. */
  readonly refused: readonly string[];
  /** Tools admitted as unclassified (`unmanifested: "approve"`). */
  readonly unclassified: readonly string[];
  readonly restarts: number;
  readonly pid: number | null;
  readonly data_dir: string | null;
}

interface UpstreamState {
  readonly name: string;
  readonly config: UpstreamConfig;
  readonly connection: UpstreamConnection;
  /** Upstream tool name → digest of its latest listing. */
  listed: Map<string, { tool: Tool; digest: string }>;
  /** Upstream tool name → the entry registered for it (admitted at open). */
  readonly entries: Map<string, AnyTool>;
  readonly refused: Set<string>;
  readonly unclassified: Set<string>;
}

export class Gateway {
  readonly #states = new Map<string, UpstreamState>();
  readonly #dir: string;
  #target: RevisionTarget | null = null;
  readonly drift: DriftRecord[] = [];
  #closing: Promise<void> | null = null;
  readonly #listeners = new Set<(d: DriftRecord) => void>();

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /** Starts every upstream and reads its tools; a failure to start any of them stops everything started. */
  static async open(o: GatewayOptions): Promise<Gateway> {
    const g = new Gateway(join(o.stateDir, 'gateway'));
    const env = o.env ?? process.env;
    for (const [name, config] of Object.entries(o.upstreams)) {
      const state: UpstreamState = {
        name,
        config,
        connection: new UpstreamConnection(name, config, { hide: o.hide, env, ...(o.workspace ? { workspace: o.workspace } : {}) }, { onTools: (tools, cause) => g.#onTools(name, tools, cause) }),
        listed: new Map(),
        entries: new Map(),
        refused: new Set(),
        unclassified: new Set(),
      };
      g.#states.set(name, state);
    }
    try {
      await Promise.all([...g.#states.values()].map((s) => s.connection.client()));
    } catch (e) {
      await g.close();
      throw e;
    }
    for (const s of g.#states.values()) g.#admit(s);
    const shared = g.#sharedKeys();
    if (shared.length > 0) {
      await g.close();
      const faults = shared.map(([key, names]) => ({ pointer: `/upstreams/${names[1]}/namespace`, message: `${key} is served by upstreams ${names.join(' and ')}: give one of them another manifest version` }));
      throw new StartupError('invalid_config', `upstreams sharing a namespace serve one tool version twice: ${faults.map((f) => f.message).join('; ')}`, { file: '(upstreams)', reason: 'schema', faults });
    }
    return g;
  }

  /** Registry keys (`name@version`) that two upstreams of one namespace both serve. */
  #sharedKeys(): [string, string[]][] {
    const by = new Map<string, string[]>();
    for (const s of this.#states.values()) for (const t of s.entries.values()) by.set(t.key, [...(by.get(t.key) ?? []), s.name]);
    return [...by].filter(([, names]) => names.length > 1);
  }

  /** Every admitted upstream tool, as registry entries. */
  tools(): AnyTool[] {
    return [...this.#states.values()].flatMap((s) => [...s.entries.values()]);
  }

  /** From now on a changed listing replaces entries in this registry (a new revision). */
  attach(target: RevisionTarget): void {
    this.#target = target;
  }

  /** Called with each drift record as it is made. */
  onDrift(listener: (d: DriftRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  connection(name: string): UpstreamConnection | undefined {
    return this.#states.get(name)?.connection;
  }

  status(): UpstreamStatus[] {
    return [...this.#states.values()].map((s) => ({
      name: s.name,
      tools: [...s.entries.values()].map((t) => t.name).sort(),
      refused: [...s.refused].sort(),
      unclassified: [...s.unclassified].sort(),
      restarts: s.connection.restarts,
      pid: s.connection.pid,
      data_dir: s.connection.dataDir,
    }));
  }

  /** The entries of the first listing: manifested tools, unclassified ones if configured; the rest refused. */
  #admit(s: UpstreamState): void {
    const taken = new Set<string>();
    for (const { tool } of s.listed.values()) {
      const entry = this.#entryOf(s, tool);
      if (entry === null) {
        s.refused.add(tool.name);
        continue;
      }
      if (taken.has(entry.name)) {
        s.refused.add(tool.name); // another tool maps to the same registry name
        continue;
      }
      taken.add(entry.name);
      if (!s.config.tools[tool.name]) s.unclassified.add(tool.name);
      s.entries.set(tool.name, entry);
    }
  }

  #entryOf(s: UpstreamState, tool: Tool): AnyTool | null {
    const manifest = s.config.tools[tool.name] ?? null;
    if (manifest === null && s.config.unmanifested === 'refuse') return null;
    return upstreamToolEntry(s.name, s.config, tool, manifest, {
      connection: s.connection,
      currentDigest: (t) => s.listed.get(t)?.digest ?? null,
      dispose: () => this.close(),
    });
  }

  #onTools(name: string, tools: readonly Tool[], cause: ListingCause): void {
    const s = this.#states.get(name);
    if (!s) return;
    const listed = new Map<string, { tool: Tool; digest: string }>();
    for (const tool of tools) listed.set(tool.name, { tool, digest: declarationDigest(tool, s.config.tools[tool.name] ?? null) });
    const previous = s.listed;
    s.listed = listed;
    if (this.#target === null) return; // still opening: #admit reads the listing
    const changed: AnyTool[] = [];
    const added: string[] = [];
    for (const [toolName, { tool, digest }] of listed) {
      const entry = s.entries.get(toolName);
      if (entry === undefined) {
        if (!previous.has(toolName) && !s.refused.has(toolName)) added.push(toolName);
        continue;
      }
      if (entry.implementation_digest === digest) continue;
      const next = this.#entryOf(s, tool);
      if (next === null || next.name !== registryNameOf(namespaceOf(name, s.config), toolName)) continue;
      s.entries.set(toolName, next);
      changed.push(next);
    }
    const removed = [...previous.keys()].filter((t) => !listed.has(t) && s.entries.has(t));
    if (changed.length === 0 && added.length === 0 && removed.length === 0) return;
    const { before, after } = changed.length > 0 ? this.#target.replace(changed) : { before: this.#target.manifest, after: this.#target.manifest };
    this.#record(name, cause, changed, added, removed, before, after);
  }

  #record(upstream: string, cause: ListingCause, changed: readonly AnyTool[], added: readonly string[], removed: readonly string[], before: Manifest, after: Manifest): void {
    mkdirSync(this.#dir, { recursive: true });
    const fileOf = (m: Manifest): string => {
      const f = join(this.#dir, `registry-${m.revision.replace(/^sha256:/, '').slice(0, 16)}.json`);
      writeFileSync(f, JSON.stringify(m, null, 2) + '\n');
      return f;
    };
    const record: DriftRecord = {
      at: new Date().toISOString(),
      upstream,
      cause,
      changed: changed.map((t) => t.name),
      added_not_admitted: added,
      removed,
      before_revision: before.revision,
      after_revision: after.revision,
      before_file: fileOf(before),
      after_file: fileOf(after),
      breaking: diffManifests(before, after).breaking,
    };
    appendFileSync(join(this.#dir, 'drift.jsonl'), JSON.stringify(record) + '\n');
    this.drift.push(record);
    for (const l of this.#listeners) l(record);
  }

  /** Stops every upstream (and everything it started). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#states.values()].map((s) => s.connection.close())).then(() => {});
    return this.#closing;
  }
}
