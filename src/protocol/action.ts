import type { Digest } from './canonical.js';

/** What a call touches, after normalization: the only thing authorization looks at. */
export type Resource =
  | { readonly kind: 'path'; readonly path: string; readonly access: PathAccess }
  | { readonly kind: 'host'; readonly host: string; readonly port: number | null }
  | { readonly kind: 'ref'; readonly ref: string; readonly access: 'read' | 'write' }
  /**
   * A resource of an external system an upstream connector names (a repository, an account, a
   * channel), normalized by its manifest (docs/gateway.md): Cedar sees `Toolgate::Resource`.
   */
  | { readonly kind: 'resource'; readonly system: string; readonly type: string; readonly id: string; readonly access: 'read' | 'write' }
  | ProgramResource;

/**
 * A program a shell line runs (src/resources/shell, docs/shell-intent.md): the file the sandbox
 * will execute, named by what it is, with what is known of how it is run. `unresolved` names
 * what could not be known from the text (a command name from a variable, `eval "$x"`, …): such
 * an entry has no name policy can trust, and a grant or policy that restricts programs refuses it.
 */
export interface ProgramResource {
  readonly kind: 'program';
  readonly name: string;
  readonly path: string | null;
  readonly args: readonly string[];
  /** Wrappers it runs under, outermost first (`sudo`, `env`, `timeout`, `sh -c`, `find -exec`…). */
  readonly wrappers: readonly string[];
  readonly is_interpreter: boolean;
  /** Given code to run (`-c`, `-e`, a script on stdin). */
  readonly runs_code: boolean;
  readonly has_network_flags: boolean;
  /** A system program (or an identical copy of one); false for a file of the workspace. */
  readonly system: boolean;
  /** Why this entry is not a known program; null when it is one. */
  readonly unresolved: string | null;
}

export type PathAccess = 'read' | 'write' | 'create' | 'delete' | 'execute';

/**
 * The irreversible external effects: the strongest classes, none stronger than another (a grant
 * or approval for one does not cover the next). The default policy puts them behind approval.
 */
export const IRREVERSIBLE_EFFECTS = ['delete', 'publish', 'send', 'deploy', 'charge'] as const;

/**
 * Effect classes, from weakest to strongest. `read` observes; `write` changes the workspace;
 * `execute` runs code; `network` reaches beyond the machine; then the irreversible ones.
 */
export const EFFECT_CLASSES = ['read', 'write', 'execute', 'network', ...IRREVERSIBLE_EFFECTS] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];

/** Effects that reach beyond this machine: MCP's `openWorldHint`, and approval by default. */
export const OPEN_WORLD_EFFECTS = ['network', ...IRREVERSIBLE_EFFECTS] as const satisfies readonly EffectClass[];

/** Reach as a number: the order of EFFECT_CLASSES, the irreversible ones sharing the top rank. */
export function effectRank(effect: EffectClass): number {
  return Math.min(EFFECT_CLASSES.indexOf(effect), EFFECT_CLASSES.indexOf(IRREVERSIBLE_EFFECTS[0]));
}

export interface NormalizedAction {
  readonly tool: string;
  readonly tool_version: string;
  readonly effect_class: EffectClass;
  readonly resources: readonly Resource[];
  /** Digest of the canonical, validated arguments. */
  readonly args_digest: Digest;
  /**
   * Digest of what an upstream tool declared (description, schemas, annotations, manifest):
   * an approval binds it, so it no longer applies once the upstream changes. Absent for built-ins.
   */
  readonly tool_digest?: string;
  /** The tool's configuration requires approval of every call (an unclassified or manifested upstream tool). */
  readonly approval_required?: true;
  /**
   * Digest of what a person approves in place of the raw arguments, when the tool gives one: a
   * shell call's parsed command line (spelling removed) with its other arguments, so the same
   * commands written differently are one action to approve (docs/shell-intent.md). The decision's
   * `action_digest` is taken over the action with `args_digest` replaced by it.
   */
  readonly binding_digest?: Digest;
}

/** The action an approval and a decision's `action_digest` are bound to (NormalizedAction.binding_digest). */
export function approvalView(action: NormalizedAction): NormalizedAction {
  if (action.binding_digest === undefined) return action;
  const { binding_digest, ...rest } = action;
  return { ...rest, args_digest: binding_digest };
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
