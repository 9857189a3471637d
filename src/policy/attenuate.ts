import type { EffectClass } from '../protocol/index.js';
import {
  BUDGET_DIMENSIONS,
  grantDigest,
  type BudgetLimits,
  type BudgetLimitsSpec,
  type Caveat,
  type Conditions,
  type Grant,
  type GrantSubject,
} from './grant.js';

/**
 * What a child may be narrowed to. Every field only narrows: globs become a caveat the child
 * must also satisfy, effect classes intersect, time bounds tighten, budgets take the minimum,
 * approvals accumulate. An absent field keeps the parent's.
 */
export interface Restrictions extends Caveat {
  readonly effects?: readonly EffectClass[];
  readonly not_before?: string;
  readonly expires_at?: string;
  readonly deadline?: string;
  readonly budget?: BudgetLimitsSpec;
  readonly approval_required?: readonly EffectClass[];
}

function later(a: string | null, b: string | undefined): string | null {
  if (b === undefined) return a;
  if (a === null) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function earlier(a: string | null, b: string | undefined): string | null {
  if (b === undefined) return a;
  if (a === null) return b;
  return Date.parse(b) < Date.parse(a) ? b : a;
}

function minLimit(a: number | null, b: number | undefined): number | null {
  if (b === undefined) return a;
  return a === null ? b : Math.min(a, b);
}

function caveatOf(r: Restrictions): Caveat | null {
  const c: { -readonly [K in keyof Caveat]: Caveat[K] } = {};
  if (r.tools !== undefined) c.tools = [...new Set(r.tools)].sort();
  if (r.read !== undefined) c.read = [...new Set(r.read)].sort();
  if (r.write !== undefined) c.write = [...new Set(r.write)].sort();
  if (r.hosts !== undefined) c.hosts = [...new Set(r.hosts)].sort();
  if (r.refs !== undefined) c.refs = [...new Set(r.refs)].sort();
  if (r.programs !== undefined) c.programs = [...new Set(r.programs)].sort();
  if (r.private_addresses !== undefined) c.private_addresses = [...new Set(r.private_addresses)].sort();
  if (r.conditions !== undefined && Object.keys(r.conditions).length > 0) c.conditions = { ...r.conditions } satisfies Conditions;
  return Object.keys(c).length > 0 ? c : null;
}

/**
 * A child grant that allows no action its parent does not: the parent's dimensions are kept
 * as they are and the restrictions are only ever added (a conjunction), so no glob needs to be
 * intersected symbolically. `subject` rebinds the child to a subtask; by default it keeps the
 * parent's.
 */
export function attenuate(parent: Grant, restrictions: Restrictions, subject?: GrantSubject): Grant {
  const budget = Object.fromEntries(
    [...BUDGET_DIMENSIONS, 'calls_per_minute' as const].map((d) => [d, minLimit(parent.budget[d], restrictions.budget?.[d])]),
  ) as unknown as BudgetLimits;
  const caveat = caveatOf(restrictions);
  return {
    format: parent.format,
    subject: subject ?? parent.subject,
    tools: parent.tools,
    effects: restrictions.effects === undefined ? parent.effects : parent.effects.filter((e) => restrictions.effects?.includes(e)),
    read: parent.read,
    write: parent.write,
    hosts: parent.hosts,
    refs: parent.refs,
    ...(parent.programs === undefined ? {} : { programs: parent.programs }),
    ...(parent.private_addresses === undefined ? {} : { private_addresses: parent.private_addresses }),
    not_before: later(parent.not_before, restrictions.not_before),
    expires_at: earlier(parent.expires_at, restrictions.expires_at),
    deadline: earlier(parent.deadline, restrictions.deadline),
    budget,
    approval_required: [...new Set([...parent.approval_required, ...(restrictions.approval_required ?? [])])].sort(),
    conditions: parent.conditions,
    caveats: caveat ? [...parent.caveats, caveat] : parent.caveats,
    parent: grantDigest(parent),
  };
}
