import picomatch from 'picomatch';
import type { AttemptId, Digest, NormalizedAction, Resource, TaskId } from '../protocol/index.js';
import { addressMatcher, type AddressMatcher } from './address-ranges.js';
import { grantDigest, type Caveat, type Conditions, type Grant } from './grant.js';

/** Who is calling, and when: supplied by the runtime at the authorize stage. */
export interface CallIdentity {
  readonly task_id: TaskId;
  readonly attempt_id: AttemptId;
  /** Epoch milliseconds. */
  readonly now: number;
  readonly cancellation_epoch?: number;
  /** The workspace revision the call sees; a function is only called when a grant requires a revision. */
  readonly revision?: string | (() => Promise<string>);
  readonly environment?: string;
}

/** A call identity with the revision read, as the grant's conditions check it. */
export type SeenCall = Omit<CallIdentity, 'revision'> & { readonly revision?: string | undefined };

/** One reason a grant refuses, with the id of the grant dimension that refused. */
export interface GrantFault {
  readonly id: string;
  readonly reason: string;
}

type Matcher = (s: string) => boolean;

const NEVER: Matcher = () => false;

function globMatcher(globs: readonly string[] | undefined): Matcher | null {
  if (globs === undefined) return null;
  return globs.length ? picomatch([...globs], { dot: true }) : NEVER;
}

/**
 * Path globs. The resource `.` is the workspace as a whole (a search of everything, a command
 * that may write anywhere): only a glob that covers every path, `**`, grants it.
 */
function pathMatcher(globs: readonly string[] | undefined): Matcher | null {
  const m = globMatcher(globs);
  if (m === null) return null;
  const whole = globs?.includes('**') ?? false;
  return (p) => (p === '.' ? whole : m(p));
}

/** Host globs may carry `:port`; a glob without a port matches any port. */
function hostMatcher(globs: readonly string[] | undefined): ((host: string, port: number | null) => boolean) | null {
  if (globs === undefined) return null;
  const anyPort: string[] = [];
  const withPort: string[] = [];
  for (const g of globs) (/:(\d+|\*)$/.test(g) ? withPort : anyPort).push(g.toLowerCase());
  const a = globMatcher(anyPort) ?? NEVER;
  const p = globMatcher(withPort) ?? NEVER;
  return (host, port) => {
    const h = host.toLowerCase();
    return a(h) || (port !== null && p(`${h}:${port}`));
  };
}

interface ScopeMatchers {
  readonly tools: Matcher | null;
  readonly read: Matcher | null;
  readonly write: Matcher | null;
  readonly hosts: ((host: string, port: number | null) => boolean) | null;
  readonly refs: Matcher | null;
  /** Program names; null: not restricted (a grant or caveat without `programs`). */
  readonly programs: Matcher | null;
  /** The host entries as written, for `namesHost` (a metadata name needs a literal entry, not a glob). */
  readonly hostNames: ReadonlySet<string> | null;
  readonly addresses: AddressMatcher | null;
}

function scopeOf(s: Caveat): ScopeMatchers {
  return {
    tools: globMatcher(s.tools),
    read: pathMatcher(s.read),
    write: pathMatcher(s.write),
    hosts: hostMatcher(s.hosts),
    refs: globMatcher(s.refs),
    programs: s.programs === undefined ? null : globMatcher(s.programs),
    hostNames: s.hosts === undefined ? null : new Set(s.hosts.map((h) => h.toLowerCase())),
    addresses: s.private_addresses === undefined ? null : addressMatcher(s.private_addresses),
  };
}

export function pathDimension(access: Resource & { kind: 'path' }): 'read' | 'write' {
  switch (access.access) {
    case 'read':
    case 'execute':
      return 'read';
    case 'write':
    case 'create':
    case 'delete':
      return 'write';
  }
}

function resourceLabel(r: Resource): string {
  switch (r.kind) {
    case 'path':
      return `${r.access} of ${r.path}`;
    case 'host':
      return `host ${r.host}${r.port === null ? '' : `:${r.port}`}`;
    case 'ref':
      return `${r.access} of ref ${r.ref}`;
    case 'program':
      return r.unresolved === null ? `program ${r.name}` : `a command that cannot be resolved (${r.unresolved})`;
    case 'resource':
      return `${r.access} of ${r.system} ${r.type} ${r.id}`;
  }
}

/** A scope without `programs` restricts none; one with it names each program, and refuses what is unresolved. */
function programCovered(m: ScopeMatchers, r: Resource & { kind: 'program' }): boolean {
  if (m.programs === null) return true;
  return r.unresolved === null && m.programs(r.name);
}

/** A grant with its globs compiled: built once per grant, checked on every call. */
export class CompiledGrant {
  readonly grant: Grant;
  readonly digest: Digest;
  readonly #scopes: readonly { readonly prefix: string; readonly m: ScopeMatchers }[];
  readonly #notBefore: number | null;
  readonly #expiresAt: number | null;
  readonly #deadline: number | null;

  constructor(grant: Grant) {
    this.grant = grant;
    this.digest = grantDigest(grant);
    this.#scopes = [
      // The grant's own private_addresses: absent grants none (a caveat's absent list restricts nothing).
      { prefix: 'grant', m: scopeOf({
        tools: grant.tools,
        read: grant.read,
        write: grant.write,
        hosts: grant.hosts,
        refs: grant.refs,
        ...(grant.programs === undefined ? {} : { programs: grant.programs }),
        private_addresses: grant.private_addresses ?? [],
      }) },
      ...grant.caveats.map((c, i) => ({ prefix: `grant.caveats[${i}]`, m: scopeOf(c) })),
    ];
    const t = (s: string | null): number | null => (s === null ? null : Date.parse(s));
    this.#notBefore = t(grant.not_before);
    this.#expiresAt = t(grant.expires_at);
    this.#deadline = t(grant.deadline);
  }

  /** What and where: tools, effect classes, paths, hosts, refs (the grant and every caveat). */
  checkScope(action: NormalizedAction): GrantFault[] {
    const faults: GrantFault[] = [];
    if (!this.grant.effects.includes(action.effect_class)) {
      faults.push({ id: 'grant.effects', reason: `effect class ${action.effect_class} is not in the grant` });
    }
    for (const { prefix, m } of this.#scopes) {
      if (m.tools && !m.tools(action.tool)) faults.push({ id: `${prefix}.tools`, reason: `tool ${action.tool} is not in the grant` });
      for (const r of action.resources) {
        let ok = true;
        let dim: string;
        switch (r.kind) {
          case 'path':
            dim = pathDimension(r);
            ok = (dim === 'read' ? m.read : m.write)?.(r.path) ?? true;
            break;
          case 'host':
            dim = 'hosts';
            ok = m.hosts?.(r.host, r.port) ?? true;
            break;
          case 'ref':
            dim = 'refs';
            ok = m.refs?.(r.ref) ?? true;
            break;
          case 'program':
            dim = 'programs';
            ok = programCovered(m, r);
            break;
          case 'resource':
            // No grant dimension names connector resources yet: the grant's tools and effects
            // decide, and Cedar sees the resource itself (docs/gateway.md).
            dim = 'tools';
            break;
        }
        if (!ok) faults.push({ id: `${prefix}.${dim}`, reason: `${resourceLabel(r)} is outside the grant` });
      }
    }
    return faults;
  }

  /** Whether every scope of the grant covers one resource (what normalize may ask before choosing an access). */
  covers(r: Resource): boolean {
    for (const { m } of this.#scopes) {
      switch (r.kind) {
        case 'path':
          if (!((pathDimension(r) === 'read' ? m.read : m.write)?.(r.path) ?? true)) return false;
          break;
        case 'host':
          if (!(m.hosts?.(r.host, r.port) ?? true)) return false;
          break;
        case 'ref':
          if (!(m.refs?.(r.ref) ?? true)) return false;
          break;
        case 'program':
          if (!programCovered(m, r)) return false;
          break;
        case 'resource':
          break;
      }
    }
    return true;
  }

  /** resources/net `DestinationGrant`: the host globs of the grant and every caveat. */
  allowsHost(host: string, port: number): boolean {
    return this.covers({ kind: 'host', host, port });
  }

  /** resources/net `DestinationGrant`: every scope that lists hosts lists this one literally. */
  namesHost(host: string): boolean {
    const h = host.toLowerCase();
    return this.#scopes.every(({ m }) => m.hostNames === null || m.hostNames.has(h));
  }

  /** resources/net `DestinationGrant`: the entries of `hosts` (grant and caveats) that every scope covers. */
  hostEntries(): { host: string; port: number | null }[] {
    const entries = new Map<string, { host: string; port: number | null }>();
    for (const { m } of this.#scopes) {
      for (const entry of m.hostNames ?? []) {
        const withPort = /^(.*):(\d+)$/.exec(entry);
        const e = withPort ? { host: withPort[1] as string, port: Number(withPort[2]) } : { host: entry.replace(/:\*$/, ''), port: null };
        if (this.covers({ kind: 'host', ...e })) entries.set(`${e.host}:${e.port ?? '*'}`, e);
      }
    }
    return [...entries.values()].sort((a, b) => (a.host === b.host ? (a.port ?? 0) - (b.port ?? 0) : a.host < b.host ? -1 : 1));
  }

  /** resources/net `DestinationGrant`: the grant's and every caveat's `private_addresses` cover the address. */
  allowsAddress(address: string, exact: boolean): boolean {
    return this.#scopes.every(({ m }) => m.addresses?.(address, exact) ?? true);
  }

  /** When: not before, expires at, deadline. */
  checkTime(now: number): GrantFault[] {
    const faults: GrantFault[] = [];
    if (this.#notBefore !== null && now < this.#notBefore) faults.push({ id: 'grant.not_before', reason: `the grant is not valid before ${this.grant.not_before}` });
    if (this.#expiresAt !== null && now >= this.#expiresAt) faults.push({ id: 'grant.expires_at', reason: `the grant expired at ${this.grant.expires_at}` });
    if (this.#deadline !== null && now >= this.#deadline) faults.push({ id: 'grant.deadline', reason: `the task deadline ${this.grant.deadline} has passed` });
    return faults;
  }

  /** Who: the grant is bound to its task, attempt and cancellation epoch. */
  checkSubject(call: SeenCall): GrantFault[] {
    const s = this.grant.subject;
    const faults: GrantFault[] = [];
    if (s.task_id !== call.task_id) faults.push({ id: 'grant.subject.task_id', reason: `the grant is bound to task ${s.task_id}, not ${call.task_id}` });
    if (s.attempt_id !== null && s.attempt_id !== call.attempt_id) {
      faults.push({ id: 'grant.subject.attempt_id', reason: `the grant is bound to attempt ${s.attempt_id}, not ${call.attempt_id}` });
    }
    if (s.cancellation_epoch !== (call.cancellation_epoch ?? 0)) {
      faults.push({ id: 'grant.subject.cancellation_epoch', reason: `the grant was issued in cancellation epoch ${s.cancellation_epoch}, the task is in ${call.cancellation_epoch ?? 0}` });
    }
    return faults;
  }

  /** Conditions: target revision, environment, policy version (the grant's and every caveat's). */
  checkConditions(call: SeenCall, policyVersion: string): GrantFault[] {
    const faults: GrantFault[] = [];
    const all: { prefix: string; c: Conditions | undefined }[] = [
      { prefix: 'grant', c: this.grant.conditions },
      ...this.grant.caveats.map((c, i) => ({ prefix: `grant.caveats[${i}]`, c: c.conditions })),
    ];
    for (const { prefix, c } of all) {
      if (!c) continue;
      if (c.required_revision !== undefined) {
        const seen = call.revision;
        if (c.required_revision !== seen) {
          faults.push({ id: `${prefix}.conditions.required_revision`, reason: `the grant requires workspace revision ${c.required_revision}, the call sees ${seen ?? 'none'}` });
        }
      }
      if (c.environment !== undefined && c.environment !== call.environment) {
        faults.push({ id: `${prefix}.conditions.environment`, reason: `the grant is valid in environment ${c.environment}, not ${call.environment ?? 'unset'}` });
      }
      if (c.policy_version !== undefined && c.policy_version !== policyVersion) {
        faults.push({ id: `${prefix}.conditions.policy_version`, reason: `the grant was issued for policy version ${c.policy_version}, the policy in force is ${policyVersion}` });
      }
    }
    return faults;
  }

  /** Whether a condition of the grant (or of a caveat) names a workspace revision. */
  get requiresRevision(): boolean {
    return this.grant.conditions?.required_revision !== undefined || this.grant.caveats.some((c) => c.conditions?.required_revision !== undefined);
  }

  /** Whether the grant itself asks for an approval of this effect class. */
  requiresApproval(action: NormalizedAction): boolean {
    return this.grant.approval_required.includes(action.effect_class);
  }
}
