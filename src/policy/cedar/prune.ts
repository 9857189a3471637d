// Which policies can be left out of a request's preparsed set because some attributes are
// already known (the effect class, a path's access and class). A policy is left out only when
// Cedar, evaluating its conditions in order, would reach a condition that is certainly false
// before anything that could raise an error: leaving it out then changes neither the decision
// nor the determining or erroring policies.
import type { PolicyJson } from '@cedar-policy/cedar-wasm/nodejs';

/** Known attribute values, keyed `context.effect`, `resource.access`, `resource.class`. */
export type KnownAttributes = Readonly<Record<string, string>>;

type Scalar = string | boolean | number;
type Static =
  | { readonly known: true; readonly value: Scalar | readonly Scalar[] }
  | { readonly known: false; readonly mayError: boolean };

const UNKNOWN_SAFE: Static = { known: false, mayError: false };
const UNKNOWN_RISKY: Static = { known: false, mayError: true };
const bool = (value: boolean): Static => ({ known: true, value });
const risky = (...xs: Static[]): boolean => xs.some((x) => !x.known && x.mayError);
const unknown = (...xs: Static[]): Static => (risky(...xs) ? UNKNOWN_RISKY : UNKNOWN_SAFE);

/** Operators that cannot raise an error on operands the strict validator accepted. */
const SAFE_BINARY = new Set(['<', '<=', '>', '>=', 'in', 'containsAll', 'containsAny', 'hasTag']);

type Node = Record<string, unknown>;

function likeMatch(s: string, pattern: readonly unknown[]): boolean {
  // pattern: 'Wildcard' | { Literal: string } (one character each), matched by backtracking
  const p = pattern.map((e) => (e === 'Wildcard' ? null : String((e as { Literal: string }).Literal)));
  const memo = new Map<string, boolean>();
  const go = (i: number, j: number): boolean => {
    const k = `${i},${j}`;
    const hit = memo.get(k);
    if (hit !== undefined) return hit;
    let r: boolean;
    if (j === p.length) r = i === s.length;
    else if (p[j] === null) r = go(i, j + 1) || (i < s.length && go(i + 1, j));
    else r = i < s.length && s.startsWith(p[j] as string, i) && go(i + (p[j] as string).length, j + 1);
    memo.set(k, r);
    return r;
  };
  return go(0, 0);
}

function evalStatic(e: unknown, known: KnownAttributes): Static {
  if (typeof e !== 'object' || e === null) return UNKNOWN_RISKY;
  const n = e as Node;
  const keys = Object.keys(n);
  if (keys.length !== 1) return UNKNOWN_RISKY;
  const op = keys[0] as string;
  const arg = n[op] as Node;
  switch (op) {
    case 'Value': {
      const v = n['Value'];
      return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' ? { known: true, value: v } : UNKNOWN_SAFE;
    }
    case 'Var':
      return UNKNOWN_SAFE;
    case 'Set': {
      const items = (n['Set'] as unknown[]).map((x) => evalStatic(x, known));
      if (items.every((x) => x.known && !Array.isArray(x.value))) return { known: true, value: items.map((x) => (x as { value: Scalar }).value) };
      return unknown(...items);
    }
    case '.': {
      const left = arg['left'] as Node;
      const v = left['Var'];
      if ((v === 'context' || v === 'resource') && typeof arg['attr'] === 'string') {
        const k = known[`${v}.${arg['attr']}`];
        if (k !== undefined) return { known: true, value: k };
        return UNKNOWN_SAFE;
      }
      // attributes of the principal or nested records: required by the strict schema
      return unknown(evalStatic(left, known));
    }
    case 'has':
    case 'is':
      return unknown(evalStatic(arg['left'], known));
    case '!': {
      const x = evalStatic(arg['arg'], known);
      return x.known && typeof x.value === 'boolean' ? bool(!x.value) : unknown(x);
    }
    case '==':
    case '!=': {
      const l = evalStatic(arg['left'], known);
      const r = evalStatic(arg['right'], known);
      if (l.known && r.known && !Array.isArray(l.value) && !Array.isArray(r.value)) return bool((l.value === r.value) === (op === '=='));
      return unknown(l, r);
    }
    case 'contains': {
      const l = evalStatic(arg['left'], known);
      const r = evalStatic(arg['right'], known);
      if (l.known && Array.isArray(l.value) && r.known && !Array.isArray(r.value)) return bool(l.value.includes(r.value as Scalar));
      return unknown(l, r);
    }
    case 'like': {
      const l = evalStatic(arg['left'], known);
      if (l.known && typeof l.value === 'string') return bool(likeMatch(l.value, arg['pattern'] as unknown[]));
      return unknown(l);
    }
    case '&&':
    case '||': {
      const l = evalStatic(arg['left'], known);
      const r = evalStatic(arg['right'], known);
      const short = op === '&&' ? false : true;
      if (l.known) return l.value === short ? bool(short) : r;
      // left is evaluated first: only when it cannot error does a known right decide
      if (!l.mayError && r.known && r.value === short) return bool(short);
      return unknown(l, r);
    }
    default:
      if (SAFE_BINARY.has(op)) return unknown(evalStatic(arg['left'], known), evalStatic(arg['right'], known));
      // arithmetic (overflow), extension functions, getTag, if-then-else, anything unknown
      return UNKNOWN_RISKY;
  }
}

/** Whether the policy could be satisfied or raise an error, given the known attributes. */
export function mayApply(policy: PolicyJson, known: KnownAttributes): boolean {
  for (const c of policy.conditions) {
    const v = evalStatic(c.body, known);
    if (v.known) {
      const satisfied = c.kind === 'when' ? v.value === true : v.value === false;
      if (!satisfied) return false;
      continue;
    }
    if (v.mayError) return true;
  }
  return true;
}
