// What a policy's scope and body say about where it can apply, read from Cedar's JSON form.
import type { ActionConstraint, EntityUidJson, PolicyJson, ResourceConstraint } from '@cedar-policy/cedar-wasm/nodejs';
import { CEDAR_NAMESPACE, RESOURCE_TYPES, type ResourceType } from './schema.js';

function uidOf(e: EntityUidJson): { type: string; id: string } {
  return '__entity' in e ? e.__entity : e;
}

function typeName(t: string): string {
  return t.startsWith(`${CEDAR_NAMESPACE}::`) ? t.slice(CEDAR_NAMESPACE.length + 2) : t;
}

/** Action names the scope can match, or `null` for every action. */
export function actionsOf(c: ActionConstraint): Set<string> | null {
  switch (c.op) {
    case 'All':
      return null;
    case '==':
      // a slot only appears in templates, which are not loaded
      return 'entity' in c ? new Set([uidOf(c.entity).id]) : new Set();
    case 'in':
      // the schema declares no action groups: `in` matches the listed actions themselves
      return new Set(('entity' in c ? [c.entity] : c.entities).map((e) => uidOf(e).id));
  }
}

/** Resource types the scope can match. Our entity types have no parents, so `in X` means X's type. */
export function resourceTypesOfScope(c: ResourceConstraint): Set<ResourceType> {
  const all = new Set<ResourceType>(RESOURCE_TYPES);
  const only = (t: string): Set<ResourceType> => {
    const n = typeName(t) as ResourceType;
    return all.has(n) ? new Set([n]) : new Set();
  };
  switch (c.op) {
    case 'All':
      return all;
    case '==':
    case 'in':
      return 'entity' in c ? only(uidOf(c.entity).type) : all;
    case 'is':
      return only(c.entity_type);
  }
}

/** Attribute names read from a variable, or `ALL` when the variable is used as a whole. */
export type AttrSet = ReadonlySet<string> | 'all';

/** What a policy can observe of a request: the projection of it that its decision depends on. */
export interface Reads {
  readonly principal: AttrSet;
  readonly resource: AttrSet;
  readonly context: AttrSet;
  /** Whether the entity's id (not only its type) matters: `==`/`in` in the scope or the body. */
  readonly principalId: boolean;
  readonly resourceId: boolean;
}

type Var3 = 'principal' | 'resource' | 'context';
const VARS: readonly Var3[] = ['principal', 'resource', 'context'];

class ReadCollector {
  readonly attrs: Record<Var3, Set<string> | 'all'> = { principal: new Set(), resource: new Set(), context: new Set() };
  readonly ids: Record<Var3, boolean> = { principal: false, resource: false, context: false };

  whole(v: Var3): void {
    this.attrs[v] = 'all';
    this.ids[v] = true;
  }

  visit(node: unknown): void {
    if (Array.isArray(node)) {
      for (const n of node) this.visit(n);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const rec = node as Record<string, unknown>;
    const v = rec['Var'];
    if (typeof v === 'string' && (VARS as readonly string[]).includes(v)) {
      // the variable itself, not one of its attributes: compared, tested with `in`/`is`, …
      this.whole(v as Var3);
      return;
    }
    for (const op of ['.', 'has'] as const) {
      const inner = rec[op] as { left?: unknown; attr?: unknown } | undefined;
      const lv = (inner?.left as { Var?: unknown } | undefined)?.Var;
      if (inner && typeof lv === 'string' && (VARS as readonly string[]).includes(lv)) {
        const set = this.attrs[lv as Var3];
        const first = Array.isArray(inner.attr) ? (inner.attr[0] as unknown) : inner.attr;
        if (set !== 'all' && typeof first === 'string') set.add(first);
        else this.attrs[lv as Var3] = 'all';
        return;
      }
    }
    for (const value of Object.values(rec)) this.visit(value);
  }
}

export function readsOf(p: PolicyJson): Reads {
  const c = new ReadCollector();
  for (const cond of p.conditions) c.visit(cond.body);
  const scopeUsesId = (s: PolicyJson['principal'] | PolicyJson['resource']): boolean => s.op === '==' || s.op === 'in' || (s.op === 'is' && s.in !== undefined);
  return {
    principal: c.attrs.principal,
    resource: c.attrs.resource,
    context: c.attrs.context,
    principalId: c.ids.principal || scopeUsesId(p.principal),
    resourceId: c.ids.resource || scopeUsesId(p.resource),
  };
}

function unionAttrs(a: AttrSet, b: AttrSet): AttrSet {
  if (a === 'all' || b === 'all') return 'all';
  return new Set([...a, ...b]);
}

export const NO_READS: Reads = { principal: new Set(), resource: new Set(), context: new Set(), principalId: false, resourceId: false };

export function unionReads(a: Reads, b: Reads): Reads {
  return {
    principal: unionAttrs(a.principal, b.principal),
    resource: unionAttrs(a.resource, b.resource),
    context: unionAttrs(a.context, b.context),
    principalId: a.principalId || b.principalId,
    resourceId: a.resourceId || b.resourceId,
  };
}

export function readsTime(r: Reads): boolean {
  return r.context === 'all' || r.context.has('time');
}
