import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { digestOf, EFFECT_CLASSES, faultsOf, StartupError, type AttemptId, type Fault, type Digest, type EffectClass, type TaskId } from '../protocol/index.js';

export const GRANT_FORMAT = 'toolgate.grant.v1';

const effectClass = z.enum(EFFECT_CLASSES);
const isoTime = z.iso.datetime({ offset: true }).describe('RFC 3339 time');
const glob = z.string().min(1).max(1024);
const limit = z.number().int().min(0);
// A plain address or CIDR, in canonical text only (no octal, hex or short IPv4 forms): a grant
// says exactly which non-public addresses it opens.
const addressRange = z
  .string()
  .min(1)
  .max(64)
  .refine((s) => {
    const [address, bits, extra] = s.split('/');
    if (address === undefined || extra !== undefined || address.includes('%') || isIP(address) === 0) return false;
    return bits === undefined || ipaddr.isValidCIDR(s);
  }, 'an IPv4 or IPv6 address or CIDR range, e.g. "10.0.0.0/8" or "fd00::1"');

export const budgetLimitsShape = z.strictObject({
  calls: limit.optional().describe('Calls admitted in the task'),
  bytes_read: limit.optional(),
  bytes_written: limit.optional(),
  cpu_ms: limit.optional(),
  wall_ms: limit.optional(),
  cost: limit.optional().describe('Cost units, as the tools report them'),
  calls_per_minute: limit.optional().describe('Calls admitted in any sliding 60 s window'),
});

export const conditionsShape = z.strictObject({
  required_revision: z.string().min(1).optional().describe('The workspace revision every call must see'),
  environment: z.string().min(1).optional().describe('The runtime environment name the grant is valid in'),
  policy_version: z.string().min(1).optional().describe('The policy version (digest) the grant was issued against'),
});

/**
 * The grant file (JSON, schemas/grant.schema.json). Anything absent grants nothing: no tools,
 * no effect classes, no paths, no hosts, no refs. Limits are the other way round: an absent
 * time bound or budget dimension does not limit.
 */
export const grantFileShape = z
  .strictObject({
    $schema: z.string().optional(),
    tools: z.array(glob).optional().describe('Tool name globs, e.g. "fs.*"'),
    effects: z.array(effectClass).optional(),
    read: z.array(glob).optional().describe('Workspace-relative path globs that may be read'),
    write: z.array(glob).optional().describe('Workspace-relative path globs that may be written, created or deleted'),
    hosts: z.array(glob).optional().describe('Host globs, optionally with ":port"'),
    refs: z.array(glob).optional().describe('Git ref globs, e.g. "refs/heads/fix/*"'),
    programs: z
      .array(glob)
      .optional()
      .describe('Names of the programs a shell line may run (docs/shell-intent.md), e.g. ["pytest", "npm", "git"]; absent: any program (Cedar may still restrict them); present, what cannot be resolved from the text is refused'),
    private_addresses: z
      .array(addressRange)
      .optional()
      .describe('Addresses and CIDR ranges that are not public (loopback, RFC 1918, ULA, link-local, CGNAT, ...) a granted host may resolve to; a cloud metadata address only by an entry that is that one address (docs/network.md)'),
    not_before: isoTime.optional(),
    expires_at: isoTime.optional(),
    deadline: isoTime.optional(),
    budget: budgetLimitsShape.optional(),
    approval_required: z.array(effectClass).optional().describe('Effect classes that always need an approval'),
    conditions: conditionsShape.optional(),
  })
  .describe('A Toolgate capability grant');

/** What a grant file says, before the runtime binds it to a task. */
export type TaskGrant = Omit<z.infer<typeof grantFileShape>, '$schema'>;
export type BudgetLimitsSpec = z.infer<typeof budgetLimitsShape>;
export type Conditions = z.infer<typeof conditionsShape>;

export const BUDGET_DIMENSIONS = ['calls', 'bytes_read', 'bytes_written', 'cpu_ms', 'wall_ms', 'cost'] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

/** Every budget dimension, `null` meaning unlimited. */
export type BudgetLimits = { readonly [K in BudgetDimension | 'calls_per_minute']: number | null };

/** Who the grant is for. The runtime fills this in; a caller never supplies it. */
export interface GrantSubject {
  readonly tenant: string;
  readonly principal: string;
  readonly task_id: TaskId;
  /** `null`: any attempt of the task. */
  readonly attempt_id: AttemptId | null;
  /** The task's cancellation epoch when the grant was issued; a cancelled task moves on. */
  readonly cancellation_epoch: number;
}

/**
 * A restriction added by attenuation. Every listed dimension must also allow the action;
 * an absent field leaves the dimension as the parent had it.
 */
export interface Caveat {
  readonly tools?: readonly string[];
  readonly read?: readonly string[];
  readonly write?: readonly string[];
  readonly hosts?: readonly string[];
  readonly refs?: readonly string[];
  readonly programs?: readonly string[];
  readonly private_addresses?: readonly string[];
  readonly conditions?: Conditions;
}

/** The effective grant: bound to a subject, digested into every receipt. */
export interface Grant {
  readonly format: typeof GRANT_FORMAT;
  readonly subject: GrantSubject;
  readonly tools: readonly string[];
  readonly effects: readonly EffectClass[];
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly hosts: readonly string[];
  readonly refs: readonly string[];
  /** Absent: programs are not restricted by the grant. Absent (not `[]`), so older grants keep their digest. */
  readonly programs?: readonly string[];
  /** Absent (not `[]`) when the grant file has none, so the digest of a grant without it is unchanged. */
  readonly private_addresses?: readonly string[];
  readonly not_before: string | null;
  readonly expires_at: string | null;
  readonly deadline: string | null;
  readonly budget: BudgetLimits;
  readonly approval_required: readonly EffectClass[];
  readonly conditions: Conditions;
  /** Conjunctive narrowings from attenuation, oldest first. */
  readonly caveats: readonly Caveat[];
  /** Digest of the grant this one was attenuated from. */
  readonly parent: Digest | null;
}

/** Used by `toolgate call` without `--grant`: the whole workspace, no network, no irreversible effects. */
export const DEFAULT_GRANT: TaskGrant = {
  tools: ['*'],
  effects: ['read', 'write', 'execute'],
  read: ['**'],
  write: ['**'],
};

/** A grant value that fails schemas/grant.schema.json: a start-up error with code `invalid_grant`. */
export class GrantFileError extends StartupError<'invalid_grant'> {
  constructor(faults: readonly Fault[]) {
    super('invalid_grant', `invalid grant: ${faults.map((f) => `${f.pointer || '/'}: ${f.message}`).join('; ')}`, { reason: 'schema', faults });
    this.name = 'GrantFileError';
  }

  get faults(): readonly Fault[] {
    return this.data.faults;
  }
}

/** Reads a grant file's JSON value; unknown fields are errors. */
export function parseGrantFile(value: unknown): TaskGrant {
  const parsed = grantFileShape.safeParse(value);
  if (!parsed.success) {
    // faultsOf names each unknown key by its own pointer (/network), like every other file Toolgate reads.
    throw new GrantFileError(faultsOf(parsed.error));
  }
  const { $schema: _ignored, ...grant } = parsed.data;
  return grant;
}

function sortedUnique<T extends string>(xs: readonly T[] | undefined): T[] {
  return [...new Set(xs ?? [])].sort();
}

function budgetOf(spec: BudgetLimitsSpec | undefined): BudgetLimits {
  return {
    calls: spec?.calls ?? null,
    bytes_read: spec?.bytes_read ?? null,
    bytes_written: spec?.bytes_written ?? null,
    cpu_ms: spec?.cpu_ms ?? null,
    wall_ms: spec?.wall_ms ?? null,
    cost: spec?.cost ?? null,
    calls_per_minute: spec?.calls_per_minute ?? null,
  };
}

/** Binds a grant file to the task (and attempt) it is issued for. */
export function bindGrant(spec: TaskGrant, subject: GrantSubject): Grant {
  return {
    format: GRANT_FORMAT,
    subject,
    tools: sortedUnique(spec.tools),
    effects: sortedUnique(spec.effects),
    read: sortedUnique(spec.read),
    write: sortedUnique(spec.write),
    hosts: sortedUnique(spec.hosts),
    refs: sortedUnique(spec.refs),
    ...(spec.programs === undefined ? {} : { programs: sortedUnique(spec.programs) }),
    ...(spec.private_addresses === undefined ? {} : { private_addresses: sortedUnique(spec.private_addresses) }),
    not_before: spec.not_before ?? null,
    expires_at: spec.expires_at ?? null,
    deadline: spec.deadline ?? null,
    budget: budgetOf(spec.budget),
    approval_required: sortedUnique(spec.approval_required),
    conditions: { ...spec.conditions },
    caveats: [],
    parent: null,
  };
}

export function grantDigest(grant: Grant): Digest {
  return digestOf(grant);
}
