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

function isContextVar(node: unknown): boolean {
  return typeof node === 'object' && node !== null && (node as { Var?: unknown }).Var === 'context';
}

/**
 * Whether evaluating the body can depend on `context.time`. Conservative: any use of
 * `context` other than reading or testing a named attribute counts as time-dependent.
 */
export function dependsOnTime(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(dependsOnTime);
  if (typeof node !== 'object' || node === null) return false;
  if (isContextVar(node)) return true;
  const rec = node as Record<string, unknown>;
  for (const op of ['.', 'has'] as const) {
    const inner = rec[op] as { left?: unknown; attr?: unknown } | undefined;
    if (inner && isContextVar(inner.left)) {
      const first = Array.isArray(inner.attr) ? (inner.attr[0] as unknown) : inner.attr;
      return first === 'time';
    }
  }
  return Object.values(rec).some(dependsOnTime);
}

export function policyDependsOnTime(p: PolicyJson): boolean {
  return p.conditions.some((c) => dependsOnTime(c.body));
}

/** Whether a body reads the given variable at all (an entity's attributes, or the entity itself). */
export function usesVar(node: unknown, name: 'principal' | 'resource'): boolean {
  if (Array.isArray(node)) return node.some((n) => usesVar(n, name));
  if (typeof node !== 'object' || node === null) return false;
  if ((node as { Var?: unknown }).Var === name) return true;
  return Object.values(node as Record<string, unknown>).some((n) => usesVar(n, name));
}
