import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { DetailedError, PolicyJson, SchemaJson } from '@cedar-policy/cedar-wasm/nodejs';
import { LRUCache } from 'lru-cache';
import { digestOf, type Digest } from '../../protocol/index.js';
import type { Manifest } from '../../registry/index.js';
import { actionsOf, NO_READS, readsOf, readsTime, resourceTypesOfScope, unionReads, type AttrSet, type Reads } from './analyze.js';
import { cedarSchemaOf, CEDAR_NAMESPACE, type ResourceType } from './schema.js';
import { PolicyLoadError, type PolicyFault } from './load-error.js';
import { mayApply, type KnownAttributes } from './prune.js';

export interface PolicySource {
  /** A file name or label, used in ids of policies without `@id`. */
  readonly name: string;
  readonly text: string;
}

export interface LoadedPolicy {
  readonly id: string;
  readonly effect: 'permit' | 'forbid';
  readonly text: string;
  /** `@approval("required")` on a permit: an allow it determines becomes `ask`. */
  readonly requires_approval: boolean;
  /** `@reason("...")`: the human reason given when the policy determines a decision. */
  readonly reason: string | null;
  readonly time_dependent: boolean;
  /** What of a request the policy can observe. */
  readonly reads: Reads;
}

/** One Cedar request: a call's principal, action, one resource, and the context. */
export interface CedarRequest {
  readonly action: string;
  readonly principal: { readonly id: string; readonly attrs: Readonly<Record<string, string>> };
  readonly resource: { readonly type: ResourceType; readonly id: string; readonly attrs: Readonly<Record<string, string | number | boolean | string[]>> };
  readonly context: { readonly effect: string; readonly args_digest: string; readonly tool_version: string; readonly time: number; readonly approval_required?: boolean };
}

export interface CedarVerdict {
  readonly decision: 'allow' | 'deny';
  /** Ids of the policies that were satisfied (the determining ones for this decision). */
  readonly satisfied: readonly string[];
  /** Policies whose evaluation errored; Cedar skips them, Toolgate denies on any. */
  readonly errored: readonly { readonly id: string; readonly message: string }[];
  readonly cached: boolean;
}

interface Partition {
  /** `null`: no policy can match, the decision is the default deny without asking Cedar. */
  readonly setId: string | null;
  readonly ids: readonly string[];
  readonly timeDependent: boolean;
  /** What the subset can observe: only that is sent to Cedar and only that keys the cache. */
  readonly reads: Reads;
}

/** Cached decisions per policy set instance by default; older entries leave first. */
const DEFAULT_CACHE_SIZE = 8192;

export interface PolicySetOptions {
  /** Decisions kept in the cache; 0 turns the cache off. Default 8192. */
  readonly cacheSize?: number;
}

function faultsOf(errors: readonly DetailedError[], policyId: string | null = null): PolicyFault[] {
  return errors.map((e) => ({ policy_id: policyId, message: e.message }));
}

/** The attributes a subset reads, or `null` when it reads none (nothing is sent). */
function project<V>(attrs: Readonly<Record<string, V>>, reads: AttrSet): Record<string, V> | null {
  if (reads === 'all') return { ...attrs };
  if (reads.size === 0) return null;
  const out: Record<string, V> = {};
  for (const k of [...reads].sort()) if (k in attrs) out[k] = attrs[k] as V;
  return out;
}

function annotation(p: PolicyJson, key: string): string | undefined {
  return p.annotations?.[key];
}

/**
 * A validated Cedar policy set for one registry revision. A request is evaluated against a
 * preparsed subset holding only the policies whose scope can match its action and resource
 * type and whose conditions are not already false for its effect class (and a path's access
 * and class), so a decision evaluates a handful of policies, not the whole set. Decisions that
 * cannot depend on time are cached by the part of the request the subset's policies read.
 */
export class CedarPolicySet {
  readonly version: Digest;
  readonly policies: ReadonlyMap<string, LoadedPolicy>;
  readonly schema: SchemaJson<string>;
  readonly #parsed: ReadonlyMap<string, PolicyJson>;
  /** Ids of the policies whose scope can match, per action and resource type. */
  readonly #scopes = new Map<string, readonly string[]>();
  /** Preparsed subsets per action, resource type and known attributes, built on first use. */
  readonly #partitions = new Map<string, Partition>();
  readonly #cache: LRUCache<string, Omit<CedarVerdict, 'cached'>>;
  readonly #cacheSize: number;
  /**
   * Some policy names `Toolgate::Program` in its resource scope. Programs are what a shell line
   * runs (docs/shell-intent.md); a policy set written before they existed, or without rules for
   * them, does not see them (its Path and Tool rules decide the call as before).
   */
  readonly restrictsPrograms: boolean;

  private constructor(
    policies: Map<string, LoadedPolicy>,
    parsed: Map<string, PolicyJson>,
    schema: SchemaJson<string>,
    actionTypes: Map<string, ResourceType[]>,
    options: PolicySetOptions,
  ) {
    this.#cacheSize = Math.max(0, options.cacheSize ?? DEFAULT_CACHE_SIZE);
    // Least recently used goes first: a verdict asked for on every call stays while one-off ones pass through.
    this.#cache = new LRUCache({ max: Math.max(1, this.#cacheSize) });
    this.policies = policies;
    this.schema = schema;
    this.version = digestOf([...policies.values()].map((p) => [p.id, p.text]).sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1)));
    this.#parsed = parsed;
    const scopes = [...parsed].map(([id, json]) => ({ id, actions: actionsOf(json.action), types: resourceTypesOfScope(json.resource) }));
    this.restrictsPrograms = scopes.some((s) => s.types.size === 1 && s.types.has('Program'));
    for (const [action, types] of actionTypes) {
      for (const type of types) {
        this.#scopes.set(`${action}\u0000${type}`, scopes.filter((s) => (s.actions === null || s.actions.has(action)) && s.types.has(type)).map((s) => s.id));
      }
    }
  }

  #preparse(ids: readonly string[]): Partition {
    if (ids.length === 0) return { setId: null, ids, timeDependent: false, reads: NO_READS };
    const staticPolicies: Record<string, string> = {};
    for (const id of [...ids].sort()) staticPolicies[id] = (this.policies.get(id) as LoadedPolicy).text;
    // Preparsed sets live in the wasm module's own table, shared by every instance in the
    // process: the id is the digest of the content, so equal sets share one entry.
    const setId = `toolgate:${digestOf(staticPolicies)}`;
    const ok = cedar.preparsePolicySet(setId, { staticPolicies });
    if (ok.type === 'failure') throw new PolicyLoadError('a policy subset does not parse', faultsOf(ok.errors));
    const reads = ids.map((id) => (this.policies.get(id) as LoadedPolicy).reads).reduce(unionReads, NO_READS);
    return { setId, ids, timeDependent: readsTime(reads), reads };
  }

  /**
   * Parses and strictly validates the policies against the schema generated from `manifest`.
   * Any parse or validation error refuses the whole set: a policy never silently drops out.
   */
  static load(manifest: Manifest, sources: readonly PolicySource[], options: PolicySetOptions = {}): CedarPolicySet {
    const schema = cedarSchemaOf(manifest);
    const policies = new Map<string, LoadedPolicy>();
    const parsed = new Map<string, PolicyJson>();
    for (const source of sources) {
      const parts = cedar.policySetTextToParts(source.text);
      if (parts.type === 'failure') throw new PolicyLoadError(`${source.name}: policies do not parse`, faultsOf(parts.errors));
      if (parts.policy_templates.length > 0) throw new PolicyLoadError(`${source.name}: templates are not supported`, []);
      parts.policies.forEach((text, i) => {
        const json = cedar.policyToJson(text);
        if (json.type === 'failure') throw new PolicyLoadError(`${source.name}: policy ${i} does not parse`, faultsOf(json.errors));
        const id = annotation(json.json, 'id') ?? `${source.name}#${i}`;
        if (policies.has(id)) throw new PolicyLoadError(`policy id ${id} is used twice`, [{ policy_id: id, message: 'duplicate id' }]);
        parsed.set(id, json.json);
        policies.set(id, {
          id,
          effect: json.json.effect,
          text,
          requires_approval: json.json.effect === 'permit' && annotation(json.json, 'approval') === 'required',
          reason: annotation(json.json, 'reason') ?? null,
          time_dependent: readsTime(readsOf(json.json)),
          reads: readsOf(json.json),
        });
      });
    }
    const staticPolicies = Object.fromEntries([...policies.values()].map((p) => [p.id, p.text]));
    const v = cedar.validate({ schema, policies: { staticPolicies }, validationSettings: { mode: 'strict' } });
    if (v.type === 'failure') throw new PolicyLoadError('policies could not be validated', faultsOf(v.errors));
    if (v.validationErrors.length > 0) {
      throw new PolicyLoadError(
        'policies fail strict validation against the registry schema',
        v.validationErrors.map((e) => ({ policy_id: e.policyId, message: e.error.message })),
      );
    }
    const actionTypes = new Map<string, ResourceType[]>();
    for (const [name, def] of Object.entries(schema[CEDAR_NAMESPACE]?.actions ?? {})) {
      actionTypes.set(name, (def.appliesTo?.resourceTypes ?? []) as ResourceType[]);
    }
    return new CedarPolicySet(policies, parsed, schema, actionTypes, options);
  }

  /** Ids of the policies whose scope can match an action on a resource type. */
  policiesInScope(action: string, type: ResourceType): readonly string[] {
    return this.#scopes.get(`${action}\u0000${type}`) ?? [];
  }

  /** Ids of the policies actually evaluated for a request (its preparsed subset). */
  policiesFor(req: CedarRequest): readonly string[] {
    return this.#partitionOf(req)?.ids ?? [];
  }

  #partitionOf(req: CedarRequest): Partition | undefined {
    const scopeKey = `${req.action}\u0000${req.resource.type}`;
    const known: Record<string, string> = { 'context.effect': req.context.effect };
    const attrs = req.resource.attrs;
    if (typeof attrs['access'] === 'string') known['resource.access'] = attrs['access'];
    if (req.resource.type === 'Path' && typeof attrs['class'] === 'string') known['resource.class'] = attrs['class'];
    const key = `${scopeKey}\u0000${known['context.effect']}\u0000${known['resource.access'] ?? ''}\u0000${known['resource.class'] ?? ''}`;
    const hit = this.#partitions.get(key);
    if (hit) return hit;
    const members = this.#scopes.get(scopeKey);
    if (members === undefined) return undefined;
    const partition = this.#preparse(members.filter((id) => mayApply(this.#parsed.get(id) as PolicyJson, known as KnownAttributes)));
    this.#partitions.set(key, partition);
    return partition;
  }

  evaluate(req: CedarRequest): CedarVerdict {
    let partition: Partition | undefined;
    try {
      partition = this.#partitionOf(req);
    } catch (e) {
      return { decision: 'deny', satisfied: [], errored: [{ id: 'policy-set', message: e instanceof Error ? e.message : String(e) }], cached: false };
    }
    if (partition === undefined) {
      return { decision: 'deny', satisfied: [], errored: [{ id: 'schema', message: `action ${req.action} does not apply to ${req.resource.type} resources` }], cached: false };
    }
    if (partition.setId === null) return { decision: 'deny', satisfied: [], errored: [], cached: false };
    const r = partition.reads;
    const principalAttrs = project(req.principal.attrs, r.principal);
    const resourceAttrs = project(req.resource.attrs, r.resource);
    const context = project(req.context, r.context);
    // The key holds exactly what the subset can observe (its projection of the request), so
    // requests that differ only in what no policy reads share one decision. JSON.stringify is
    // injective over values: two different projections never share a key.
    const key = partition.timeDependent || this.#cacheSize === 0
      ? null
      : JSON.stringify([partition.setId, r.principalId ? req.principal.id : null, r.resourceId ? req.resource.id : null, principalAttrs, resourceAttrs, context]);
    if (key !== null) {
      const hit = this.#cache.get(key);
      if (hit) return { ...hit, cached: true };
    }
    const ns = CEDAR_NAMESPACE;
    const principal = { type: `${ns}::Task`, id: req.principal.id };
    const resource = { type: `${ns}::${req.resource.type}`, id: req.resource.id };
    // Crossing into wasm costs per value sent: only the attributes the subset reads are sent.
    const entities: cedar.EntityJson[] = [];
    if (principalAttrs !== null) entities.push({ uid: principal, attrs: principalAttrs, parents: [] });
    if (resourceAttrs !== null) entities.push({ uid: resource, attrs: resourceAttrs, parents: [] });
    const answer = cedar.statefulIsAuthorized({
      principal,
      action: { type: `${ns}::Action`, id: req.action },
      resource,
      context: context ?? {},
      // Requests are built from the same schema by cedarRequestsOf (a test validates them), and
      // an action/resource pair outside the schema never gets here (no partition): validating
      // every request again would double the cost of a decision.
      validateRequest: false,
      preparsedPolicySetId: partition.setId,
      entities,
    });
    let verdict: Omit<CedarVerdict, 'cached'>;
    if (answer.type === 'failure') {
      verdict = { decision: 'deny', satisfied: [], errored: answer.errors.map((e) => ({ id: 'request', message: e.message })) };
    } else {
      const d = answer.response.diagnostics;
      verdict = {
        decision: answer.response.decision,
        satisfied: [...d.reason].sort(),
        errored: d.errors.map((e) => ({ id: e.policyId, message: e.error.message })),
      };
    }
    if (key !== null) {
      this.#cache.set(key, verdict);
    }
    return { ...verdict, cached: false };
  }
}
