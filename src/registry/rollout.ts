// Registry rollout (`rollout` in toolgate.config.json, docs/registry.md#rollout): which new tasks
// pin a canary version of a tool, and when a version is retired. It only decides what a task
// *pins* at its first call; a pinned task keeps its revision (durably, across restarts), so a
// rollout change never moves a task that already runs, apart from the end of a deprecation window.
import { z } from 'zod';
import { sha256Hex } from '../protocol/index.js';
import type { DeprecationState } from './define.js';

const version = z.string().regex(/^\d+\.\d+\.\d+$/, 'MAJOR.MINOR.PATCH');
const instant = z.iso.datetime({ offset: true });

export const toolRolloutSchema = z.strictObject({
  canary: z
    .strictObject({
      version: version.describe('The new version; only tasks in the canary pin it, the others pin the registry without it'),
      share: z.number().min(0).max(1).describe('Share of new tasks in the canary, chosen by a hash of the task id (reproducible)'),
    })
    .optional(),
  retire: z
    .record(
      version,
      z.strictObject({
        at: instant.optional().describe('When the version is retired (default: now); before then it is deprecated'),
        window_ends: instant.describe('Tasks pinned before the retirement keep the version until then; afterwards it is refused to every task'),
        replacement: version.optional().describe('The version to move to, named in the refusal'),
      }),
    )
    .default({})
    .describe('Versions to retire: refused to tasks pinned after `at` (tool_version_retired)'),
});

export const rolloutSchema = z
  .record(z.string().regex(/^[a-z][a-z0-9_-]*(\.([a-z][a-z0-9_-]*|\*))+$/, 'a tool name (fs.search) or an upstream namespace (tracker.*)'), toolRolloutSchema)
  .describe('Canary shares and retirements per tool name or upstream namespace (docs/registry.md#rollout)');

export type ToolRollout = z.infer<typeof toolRolloutSchema>;
export type RolloutConfig = Readonly<Record<string, z.input<typeof toolRolloutSchema>>>;

/** A parsed rollout: the rule of a tool name (its own key first, then its namespace's `NS.*`). */
export class Rollout {
  readonly #rules: ReadonlyMap<string, ToolRollout>;

  constructor(config: RolloutConfig = {}) {
    this.#rules = new Map(Object.entries(rolloutSchema.parse(config)));
  }

  get empty(): boolean {
    return this.#rules.size === 0;
  }

  keys(): string[] {
    return [...this.#rules.keys()];
  }

  /** The rule of a tool and its key (the tool's name, or its namespace's `NS.*`). */
  ruleOf(name: string): { readonly key: string; readonly rule: ToolRollout } | undefined {
    for (const key of [name, `${name.slice(0, name.indexOf('.'))}.*`]) {
      const rule = this.#rules.get(key);
      if (rule !== undefined) return { key, rule };
    }
    return undefined;
  }

  /**
   * The lifecycle of `name@version` at `now`, as configured; undefined when the rollout says
   * nothing about it (the tool's own `deprecation` holds).
   */
  lifecycleAt(name: string, version: string, now: number): DeprecationState | undefined {
    const r = this.ruleOf(name)?.rule.retire[version];
    if (r === undefined) return undefined;
    const replacement = r.replacement !== undefined ? { replacement: r.replacement } : {};
    if (r.at !== undefined && now < Date.parse(r.at)) return { state: 'deprecated', ...replacement };
    return { state: 'retired', migration_window_ends: r.window_ends, ...(r.at !== undefined ? { retired_at: r.at } : {}), ...replacement };
  }
}

/**
 * Whether a task is in the canary of `name@version`: the first 32 bits of
 * sha256(name, version, task id) below `share` of 2^32. A pure function of the ids, so the same
 * task lands in the same cohort on every host and after every restart, and a new canary version
 * draws a fresh cohort.
 */
export function inCanary(task: string, name: string, version: string, share: number): boolean {
  if (share <= 0) return false;
  if (share >= 1) return true;
  const h = Number.parseInt(sha256Hex(`toolgate/rollout/v1\0${name}\0${version}\0${task}`).slice(0, 8), 16);
  return h < share * 2 ** 32;
}
