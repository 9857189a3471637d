import picomatch from 'picomatch';
import { digestOf, type Decision, type Digest, type EffectClass, type NormalizedAction } from '../protocol/index.js';

/**
 * A task's grant as the spine knows it: which tools, which effect classes, which paths may be
 * read and which written. Anything absent grants nothing. The policy layer (Cedar, budgets,
 * approvals) builds on the same authorize stage.
 */
export interface TaskGrant {
  readonly tools: readonly string[];
  readonly effects: readonly EffectClass[];
  readonly read: readonly string[];
  readonly write: readonly string[];
}

/** Used by `toolgate call` without `--grant`: the whole workspace, no network, no irreversible effects. */
export const DEFAULT_GRANT: TaskGrant = {
  tools: ['*'],
  effects: ['read', 'write', 'execute'],
  read: ['**'],
  write: ['**'],
};

export const SPINE_POLICY_VERSION = 'grant-only.v1';

export class GrantAuthorizer {
  readonly grant: TaskGrant;
  readonly digest: Digest;
  readonly #tool: (s: string) => boolean;
  readonly #read: (s: string) => boolean;
  readonly #write: (s: string) => boolean;

  constructor(grant: TaskGrant) {
    this.grant = grant;
    this.digest = digestOf(grant);
    const never = (): boolean => false;
    this.#tool = grant.tools.length ? picomatch([...grant.tools], { dot: true }) : never;
    this.#read = grant.read.length ? picomatch([...grant.read], { dot: true }) : never;
    this.#write = grant.write.length ? picomatch([...grant.write], { dot: true }) : never;
  }

  authorize(action: NormalizedAction): Decision {
    const reasons: string[] = [];
    const determining: string[] = [];
    if (!this.#tool(action.tool)) {
      reasons.push(`tool ${action.tool} is not in the grant`);
      determining.push('grant.tools');
    }
    if (!this.grant.effects.includes(action.effect_class)) {
      reasons.push(`effect class ${action.effect_class} is not in the grant`);
      determining.push('grant.effects');
    }
    for (const r of action.resources) {
      if (r.kind !== 'path') {
        reasons.push(`${r.kind} resources are not granted by the spine grant`);
        determining.push(`grant.${r.kind}`);
        continue;
      }
      const ok = r.access === 'read' ? this.#read(r.path) : this.#write(r.path);
      if (!ok) {
        reasons.push(`${r.access} of ${r.path} is outside the grant`);
        determining.push(r.access === 'read' ? 'grant.read' : 'grant.write');
      }
    }
    return {
      outcome: reasons.length === 0 ? 'allow' : 'deny',
      reasons,
      determining,
      policy_version: SPINE_POLICY_VERSION,
      grant_digest: this.digest,
    };
  }
}
