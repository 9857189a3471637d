import type { Digest } from './canonical.js';

/** What a call touches, after normalization: the only thing authorization looks at. */
export type Resource =
  | { readonly kind: 'path'; readonly path: string; readonly access: PathAccess }
  | { readonly kind: 'host'; readonly host: string; readonly port: number | null }
  | { readonly kind: 'ref'; readonly ref: string; readonly access: 'read' | 'write' };

export type PathAccess = 'read' | 'write' | 'create' | 'delete' | 'execute';

/**
 * Effect classes, from weakest to strongest. `read` observes; `write` changes the workspace;
 * `execute` runs code; `network` reaches beyond the machine; the rest are irreversible
 * external effects that the default policy puts behind approval.
 */
export const EFFECT_CLASSES = ['read', 'write', 'execute', 'network', 'delete', 'publish', 'send', 'deploy', 'charge'] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];

export interface NormalizedAction {
  readonly tool: string;
  readonly tool_version: string;
  readonly effect_class: EffectClass;
  readonly resources: readonly Resource[];
  /** Digest of the canonical, validated arguments. */
  readonly args_digest: Digest;
}

export type DecisionOutcome = 'allow' | 'deny' | 'ask';

export interface Decision {
  readonly outcome: DecisionOutcome;
  readonly reasons: readonly string[];
  /** Ids of the rules or policies that determined the outcome. */
  readonly determining: readonly string[];
  /** Digest of the policy set in force. */
  readonly policy_version: string;
  /** Digest of the effective grant. */
  readonly grant_digest: Digest;
}
