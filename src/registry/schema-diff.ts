// Compares two JSON Schemas (as zod 4's `z.toJSONSchema` writes them) and classifies each
// difference by who holds the value: a request schema describes what callers send, so a change
// that accepts more is compatible and one that accepts less is breaking; a response schema
// describes what callers receive, so the directions swap (docs/registry.md).
import { canonicalJson, escapePointerToken, pointerTokens } from '../protocol/index.js';
import type { ChangeKind, ChangeSeverity, SchemaSide } from './change.js';

type SchemaNode = Readonly<Record<string, unknown>>;

export interface SchemaFinding {
  readonly kind: ChangeKind;
  readonly severity: ChangeSeverity;
  readonly field: string;
  readonly pointer: string;
  readonly message: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

const ANNOTATIONS = ['description', 'title', 'examples', '$comment', 'deprecated'] as const;
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'minContains'] as const;
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'maxContains'] as const;
/** Keywords whose any change narrows or widens the set in a way we cannot order; added = tighter. */
const OPAQUE_CONSTRAINTS = ['pattern', 'format', 'multipleOf', 'uniqueItems', 'contentEncoding', 'contentMediaType'] as const;
/** Everything compared explicitly below; any other keyword is compared as an opaque value. */
const HANDLED = new Set<string>([
  '$schema', '$id', '$defs', 'definitions', '$ref', 'readOnly', 'writeOnly', 'id',
  ...ANNOTATIONS, ...LOWER_BOUNDS, ...UPPER_BOUNDS, ...OPAQUE_CONSTRAINTS,
  'type', 'enum', 'const', 'default', 'properties', 'required', 'additionalProperties',
  'unevaluatedProperties', 'propertyNames', 'items', 'prefixItems', 'anyOf', 'oneOf', 'allOf',
]);

function isNode(v: unknown): v is SchemaNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asNode(v: unknown): SchemaNode {
  if (v === false) return { not: {} };
  return isNode(v) ? v : {};
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

function resolvePointer(root: SchemaNode, ref: string): SchemaNode | undefined {
  // a `$ref` within the document is a URI fragment holding a JSON pointer
  const tokens = ref.startsWith('#') ? pointerTokens(ref.slice(1)) : null;
  if (tokens === null) return undefined;
  let cur: unknown = root;
  for (const token of tokens) {
    if (!isNode(cur)) return undefined;
    cur = cur[token];
  }
  return isNode(cur) ? cur : undefined;
}

/** null means "any type". `integer` is kept apart and treated as a subset of `number`. */
function typesOf(node: SchemaNode): readonly string[] | null {
  const t = node['type'];
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return null;
}

function covers(wide: readonly string[] | null, narrow: readonly string[] | null): boolean {
  if (wide === null) return true;
  if (narrow === null) return false;
  return narrow.every((t) => wide.includes(t) || (t === 'integer' && wide.includes('number')));
}

function valuesOf(node: SchemaNode): readonly unknown[] | null {
  if (Array.isArray(node['enum'])) return node['enum'] as unknown[];
  if ('const' in node) return [node['const']];
  return null;
}

function variantsOf(node: SchemaNode): readonly SchemaNode[] | null {
  const v = node['anyOf'] ?? node['oneOf'];
  return Array.isArray(v) ? v.map(asNode) : null;
}

function variantKey(node: SchemaNode): string {
  const t = typesOf(node);
  return t === null ? 'any' : [...t].sort().join('|');
}

/**
 * How alike two alternatives are: shared property names, and far more for equal constants.
 * -1 when a shared property has disjoint constants: two tags of a discriminated union.
 */
function similarity(a: SchemaNode, b: SchemaNode): number {
  const pa = propertiesOf(a);
  const pb = propertiesOf(b);
  let score = 0;
  for (const [k, na] of pa) {
    const nb = pb.get(k);
    if (nb === undefined) continue;
    score += 1;
    const va = valuesOf(na);
    const vb = valuesOf(nb);
    if (va === null || vb === null) continue;
    const keys = new Set(vb.map((v) => canonicalJson(v ?? null)));
    if (!va.some((v) => keys.has(canonicalJson(v ?? null)))) return -1;
    if (same(va, vb)) score += 100;
  }
  return score;
}

function isClosed(node: SchemaNode): boolean {
  return node['additionalProperties'] === false || node['unevaluatedProperties'] === false;
}

function isObjectish(node: SchemaNode): boolean {
  const t = typesOf(node);
  return (t !== null && t.includes('object')) || isNode(node['properties']);
}

function isArrayish(node: SchemaNode): boolean {
  const t = typesOf(node);
  return (t !== null && t.includes('array')) || 'items' in node || 'prefixItems' in node;
}

function requiredOf(node: SchemaNode): Set<string> {
  const r = node['required'];
  return new Set(Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : []);
}

function propertiesOf(node: SchemaNode): ReadonlyMap<string, SchemaNode> {
  const p = node['properties'];
  return new Map(isNode(p) ? Object.entries(p).map(([k, v]) => [k, asNode(v)]) : []);
}

function childField(field: string, name: string): string {
  return field === '' ? name : `${field}.${name}`;
}

function show(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/** A node without its annotations, for rename detection. */
function shapeOf(node: SchemaNode): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (!(ANNOTATIONS as readonly string[]).includes(k)) rest[k] = v;
  return canonicalJson(rest);
}

class SchemaComparison {
  readonly findings: SchemaFinding[] = [];
  readonly #seen = new Set<string>();

  constructor(
    readonly side: SchemaSide,
    readonly oldRoot: SchemaNode,
    readonly newRoot: SchemaNode,
  ) {}

  /** Severity of a change that lets more values through (requests: compatible). */
  get wider(): ChangeSeverity {
    return this.side === 'request' ? 'compatible' : 'breaking';
  }

  /** Severity of a change that lets fewer values through (requests: breaking). */
  get narrower(): ChangeSeverity {
    return this.side === 'request' ? 'breaking' : 'compatible';
  }

  add(kind: ChangeKind, severity: ChangeSeverity, field: string, pointer: string, message: string, before?: unknown, after?: unknown): void {
    const where = field === '' ? `${this.side}` : `${this.side} field ${field}`;
    this.findings.push({
      kind,
      severity,
      field,
      pointer,
      message: `${where}: ${message}`,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    });
  }

  compare(oldIn: SchemaNode, newIn: SchemaNode, field: string, oldPtr: string, newPtr: string): void {
    let o = oldIn;
    let n = newIn;
    let op = oldPtr;
    let np = newPtr;
    // Follow references on both sides; a pair already being compared is a recursion (z.lazy).
    const oRef = typeof o['$ref'] === 'string' ? o['$ref'] : null;
    const nRef = typeof n['$ref'] === 'string' ? n['$ref'] : null;
    if (oRef !== null || nRef !== null) {
      const key = `${oRef ?? op}\u0000${nRef ?? np}`;
      if (this.#seen.has(key)) return;
      this.#seen.add(key);
      if (oRef !== null) {
        o = { ...(resolvePointer(this.oldRoot, oRef) ?? {}), ...Object.fromEntries(Object.entries(o).filter(([k]) => k !== '$ref')) };
        op = oRef.slice(1);
      }
      if (nRef !== null) {
        n = { ...(resolvePointer(this.newRoot, nRef) ?? {}), ...Object.fromEntries(Object.entries(n).filter(([k]) => k !== '$ref')) };
        np = nRef.slice(1);
      }
    }
    this.#annotations(o, n, field, np);
    const ov = variantsOf(o);
    const nv = variantsOf(n);
    if (ov !== null || nv !== null) {
      this.#variants(ov ?? [o], nv ?? [n], field, op, np, ov !== null ? (o['anyOf'] ? '/anyOf' : '/oneOf') : '', nv !== null ? (n['anyOf'] ? '/anyOf' : '/oneOf') : '');
      return;
    }
    this.#compareShape(o, n, field, op, np);
  }

  #annotations(o: SchemaNode, n: SchemaNode, field: string, np: string): void {
    const changed = ANNOTATIONS.filter((k) => !same(o[k], n[k]));
    if (changed.length === 0) return;
    const first = changed[0] ?? 'description';
    this.add('description_changed', 'compatible', field, np, `${changed.join(', ')} changed`, o[first], n[first]);
  }

  /** anyOf/oneOf: pair variants by type, then compare each pair; the rest were added or removed. */
  #variants(ov: readonly SchemaNode[], nv: readonly SchemaNode[], field: string, op: string, np: string, oKey: string, nKey: string): void {
    const unmatchedNew = nv.map((node, i) => ({ node, i }));
    const pairs: { o: SchemaNode; oi: number; n: SchemaNode; ni: number }[] = [];
    const take = (j: number): { node: SchemaNode; i: number } | undefined => (j >= 0 ? unmatchedNew.splice(j, 1)[0] : undefined);
    // Unchanged alternatives first, so a changed one cannot take an unchanged one's partner.
    const rest: { node: SchemaNode; i: number }[] = [];
    ov.forEach((node, i) => {
      const match = take(unmatchedNew.findIndex((c) => same(c.node, node)));
      if (match) pairs.push({ o: node, oi: i, n: match.node, ni: match.i });
      else rest.push({ node, i });
    });
    const unmatchedOld: { node: SchemaNode; i: number }[] = [];
    for (const { node, i } of rest) {
      // Among alternatives of the same type, the most alike (a discriminated union pairs by its tag).
      let j = -1;
      let best = -1;
      unmatchedNew.forEach((c, k) => {
        if (variantKey(c.node) !== variantKey(node)) return;
        const score = similarity(node, c.node);
        if (score >= 0 && score > best) {
          best = score;
          j = k;
        }
      });
      if (j < 0) {
        j = unmatchedNew.findIndex(
          (c) => variantKey(c.node) !== variantKey(node) && (covers(typesOf(c.node), typesOf(node)) || covers(typesOf(node), typesOf(c.node))),
        );
      }
      const match = take(j);
      if (match) pairs.push({ o: node, oi: i, n: match.node, ni: match.i });
      else unmatchedOld.push({ node, i });
    }
    const ptr = (base: string, key: string, i: number): string => (key === '' ? base : `${base}${key}/${i}`);
    for (const p of pairs) this.compare(p.o, p.n, field, ptr(op, oKey, p.oi), ptr(np, nKey, p.ni));
    for (const u of unmatchedOld) {
      this.add('variant_removed', this.narrower, field, ptr(op, oKey, u.i), `no longer allows the ${variantKey(u.node)} alternative`, u.node, undefined);
    }
    for (const u of unmatchedNew) {
      this.add('variant_added', this.wider, field, ptr(np, nKey, u.i), `now also allows a ${variantKey(u.node)} alternative`, undefined, u.node);
    }
  }

  #compareShape(o: SchemaNode, n: SchemaNode, field: string, op: string, np: string): void {
    const ot = typesOf(o);
    const nt = typesOf(n);
    if (!same(ot, nt)) {
      const widened = covers(nt, ot);
      const narrowed = covers(ot, nt);
      const show_ = (t: readonly string[] | null): string => (t === null ? 'any' : t.join('|'));
      const msg = `type ${show_(ot)} → ${show_(nt)}`;
      if (widened && !narrowed) this.add('type_widened', this.wider, field, np, msg, ot, nt);
      else if (narrowed && !widened) this.add('type_narrowed', this.narrower, field, np, msg, ot, nt);
      else {
        // Incomparable types: nothing below means the same thing any more.
        this.add('type_changed', 'breaking', field, np, msg, ot, nt);
        return;
      }
    }
    this.#enum(o, n, field, np);
    if (this.side === 'request') this.#default(o, n, field, np);
    this.#bounds(o, n, field, np);
    this.#opaque(o, n, field, np);
    if (isObjectish(o) || isObjectish(n)) this.#object(o, n, field, op, np);
    if (isArrayish(o) || isArrayish(n)) this.#array(o, n, field, op, np);
  }

  #enum(o: SchemaNode, n: SchemaNode, field: string, np: string): void {
    const ov = valuesOf(o);
    const nv = valuesOf(n);
    if (ov === null && nv === null) return;
    if (ov === null) {
      this.add('enum_narrowed', this.narrower, field, np, `now limited to ${show(nv ?? [])}`, undefined, nv);
      return;
    }
    if (nv === null) {
      this.add('enum_widened', this.wider, field, np, `no longer limited to ${show(ov)}`, ov, undefined);
      return;
    }
    const key = (v: unknown): string => canonicalJson(v ?? null);
    const nKeys = new Set(nv.map(key));
    const oKeys = new Set(ov.map(key));
    const removed = ov.filter((v) => !nKeys.has(key(v)));
    const added = nv.filter((v) => !oKeys.has(key(v)));
    if (removed.length > 0) this.add('enum_narrowed', this.narrower, field, np, `no longer allows ${show(removed)}`, removed, undefined);
    if (added.length > 0) this.add('enum_widened', this.wider, field, np, `now also allows ${show(added)}`, undefined, added);
  }

  /** A default is what an old caller who omits the field gets: changing it changes their call. */
  #default(o: SchemaNode, n: SchemaNode, field: string, np: string): void {
    const had = 'default' in o;
    const has = 'default' in n;
    if (!had && !has) return;
    if (had && has) {
      if (!same(o['default'], n['default'])) {
        this.add('default_changed', 'breaking', field, np, `default ${JSON.stringify(o['default'])} → ${JSON.stringify(n['default'])}`, o['default'], n['default']);
      }
    } else if (has) {
      this.add('default_added', 'compatible', field, np, `now defaults to ${JSON.stringify(n['default'])}`, undefined, n['default']);
    } else {
      this.add('default_removed', 'breaking', field, np, `no longer defaults to ${JSON.stringify(o['default'])}`, o['default'], undefined);
    }
  }

  #bounds(o: SchemaNode, n: SchemaNode, field: string, np: string): void {
    const check = (k: string, tighterWhenGreater: boolean): void => {
      const a = o[k];
      const b = n[k];
      if (same(a, b)) return;
      let tighter: boolean;
      if (typeof a === 'number' && typeof b === 'number') tighter = tighterWhenGreater ? b > a : b < a;
      else tighter = a === undefined; // a bound added is tighter; a bound removed is looser
      if (tighter) this.add('constraint_tightened', this.narrower, field, np, `${k} ${JSON.stringify(a ?? null)} → ${JSON.stringify(b ?? null)}`, a, b);
      else this.add('constraint_loosened', this.wider, field, np, `${k} ${JSON.stringify(a ?? null)} → ${JSON.stringify(b ?? null)}`, a, b);
    };
    for (const k of LOWER_BOUNDS) check(k, true);
    for (const k of UPPER_BOUNDS) check(k, false);
  }

  #opaque(o: SchemaNode, n: SchemaNode, field: string, np: string): void {
    for (const k of OPAQUE_CONSTRAINTS) {
      if (same(o[k], n[k])) continue;
      // uniqueItems: false is the same as absent.
      if (k === 'uniqueItems' && !o[k] === !n[k]) continue;
      const loosened = n[k] === undefined || (k === 'uniqueItems' && !n[k]);
      if (loosened) this.add('constraint_loosened', this.wider, field, np, `${k} ${JSON.stringify(o[k])} removed`, o[k], undefined);
      else this.add('constraint_tightened', this.narrower, field, np, `${k} ${JSON.stringify(o[k] ?? null)} → ${JSON.stringify(n[k])}`, o[k], n[k]);
    }
    // Keywords this comparison does not understand: any change may reject what passed before.
    const keys = new Set([...Object.keys(o), ...Object.keys(n)].filter((k) => !HANDLED.has(k)));
    for (const k of [...keys].sort()) {
      if (!same(o[k], n[k])) this.add('schema_keyword_changed', 'breaking', field, `${np}/${escapePointerToken(k)}`, `keyword ${k} changed`, o[k], n[k]);
    }
    const oa = o['allOf'];
    const na = n['allOf'];
    if (!same(oa, na)) {
      if (Array.isArray(oa) && Array.isArray(na) && oa.length === na.length) {
        oa.forEach((sub, i) => this.compare(asNode(sub), asNode(na[i]), field, `${np}/allOf/${i}`, `${np}/allOf/${i}`));
      } else {
        this.add('schema_keyword_changed', 'breaking', field, `${np}/allOf`, 'allOf changed', oa, na);
      }
    }
  }

  #object(o: SchemaNode, n: SchemaNode, field: string, op: string, np: string): void {
    const oProps = propertiesOf(o);
    const nProps = propertiesOf(n);
    const oReq = requiredOf(o);
    const nReq = requiredOf(n);
    const removed = [...oProps.keys()].filter((k) => !nProps.has(k));
    const added = [...nProps.keys()].filter((k) => !oProps.has(k));

    // A removed and an added field of the same shape in the same object is a rename.
    const renamedTo = new Map<string, string>();
    for (const r of removed) {
      const shape = shapeOf(oProps.get(r) ?? {});
      const candidates = added.filter((a) => shapeOf(nProps.get(a) ?? {}) === shape && ![...renamedTo.values()].includes(a));
      const rivals = removed.filter((x) => x !== r && shapeOf(oProps.get(x) ?? {}) === shape);
      if (candidates.length === 1 && rivals.length === 0 && candidates[0] !== undefined) renamedTo.set(r, candidates[0]);
    }
    for (const r of removed) {
      const to = renamedTo.get(r);
      const pointer = `${op}/properties/${escapePointerToken(r)}`;
      if (to !== undefined) this.add('field_renamed', 'breaking', childField(field, r), pointer, `renamed to ${to}`, r, to);
      else this.add('field_removed', 'breaking', childField(field, r), pointer, 'removed', oProps.get(r), undefined);
    }
    const renamedTargets = new Set(renamedTo.values());
    for (const a of added) {
      if (renamedTargets.has(a)) continue;
      const node = nProps.get(a) ?? {};
      const pointer = `${np}/properties/${escapePointerToken(a)}`;
      if (this.side === 'response') {
        this.add('field_added', 'compatible', childField(field, a), pointer, 'new result field', undefined, node);
      } else if (nReq.has(a)) {
        this.add('required_field_added', 'breaking', childField(field, a), pointer, 'new required field: old calls lack it', undefined, node);
      } else {
        const how = 'default' in node ? `with default ${JSON.stringify(node['default'])}` : 'without a default (omitting it must mean the old behaviour)';
        this.add('field_added', 'compatible', childField(field, a), pointer, `new optional field ${how}`, undefined, node);
      }
    }
    for (const [k, oNode] of oProps) {
      const nNode = nProps.get(k);
      if (nNode === undefined) continue;
      const f = childField(field, k);
      const pointer = `${np}/properties/${escapePointerToken(k)}`;
      this.compare(oNode, nNode, f, `${op}/properties/${escapePointerToken(k)}`, pointer);
      const was = oReq.has(k);
      const is = nReq.has(k);
      if (was === is) continue;
      if (is) this.add('field_became_required', this.narrower, f, pointer, 'optional → required', false, true);
      else this.add('field_became_optional', this.wider, f, pointer, 'required → optional', true, false);
    }

    const oClosed = isClosed(o);
    const nClosed = isClosed(n);
    if (oClosed !== nClosed) {
      if (nClosed) {
        // Requests: a caller that sent an extra field was accepted and is now refused.
        // Responses: callers already had to cope with fields they do not know.
        this.add('unknown_fields_rejected', this.side === 'request' ? 'breaking' : 'compatible', field, np, 'unknown fields are now rejected', false, true);
      } else {
        this.add('unknown_fields_allowed', 'compatible', field, np, 'unknown fields are no longer rejected', true, false);
      }
    } else {
      const oa = o['additionalProperties'];
      const na = n['additionalProperties'];
      if ((isNode(oa) || isNode(na)) && !same(oa, na)) {
        this.compare(asNode(oa), asNode(na), childField(field, '*'), `${op}/additionalProperties`, `${np}/additionalProperties`);
      }
    }
    const on = o['propertyNames'];
    const nn = n['propertyNames'];
    if ((isNode(on) || isNode(nn)) && !same(on, nn)) {
      this.compare(asNode(on), asNode(nn), `${field}{key}`, `${op}/propertyNames`, `${np}/propertyNames`);
    }
  }

  #array(o: SchemaNode, n: SchemaNode, field: string, op: string, np: string): void {
    const oi = o['items'];
    const ni = n['items'];
    if (!same(oi, ni)) this.compare(asNode(oi), asNode(ni), `${field}[]`, `${op}/items`, `${np}/items`);
    const opi = o['prefixItems'];
    const npi = n['prefixItems'];
    if (same(opi, npi)) return;
    if (Array.isArray(opi) && Array.isArray(npi) && opi.length === npi.length) {
      opi.forEach((sub, i) => this.compare(asNode(sub), asNode(npi[i]), `${field}[${i}]`, `${op}/prefixItems/${i}`, `${np}/prefixItems/${i}`));
    } else {
      this.add('schema_keyword_changed', 'breaking', field, `${np}/prefixItems`, 'tuple positions changed', opi, npi);
    }
  }
}

/** Every classified difference between two schemas of one side of a tool. */
export function diffSchemas(side: SchemaSide, oldSchema: SchemaNode, newSchema: SchemaNode): SchemaFinding[] {
  const cmp = new SchemaComparison(side, oldSchema, newSchema);
  cmp.compare(oldSchema, newSchema, '', '', '');
  return cmp.findings;
}
