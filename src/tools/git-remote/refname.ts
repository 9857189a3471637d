// A ref as the grant's `refs` globs see it: one full, canonical name. The rules are those of
// `git check-ref-format` (git-check-ref-format(1), rules 1–10), written out here so that
// normalize needs no process; the test runs git itself as the oracle on the same inputs.
// Stricter than git in three ways, each because a grant glob must mean one thing: only printable
// ASCII (a homograph of a granted branch is refused, not matched or missed), no `HEAD`-like
// symbolic names, and a full name always starts with `refs/` and has at least three components.
import { ToolgateError, type ErrorDataByCode } from '../../protocol/index.js';

/** Why a ref is refused: the protocol's list (invalid_resource, kind ref) is the one place it is written. */
export type RefFault = Extract<ErrorDataByCode['invalid_resource'], { readonly kind: 'ref' }>['reason'];

export const MAX_REF_BYTES = 1024;

/** Names git resolves symbolically or specially: never a ref a push may target. */
const SYMBOLIC = new Set(['HEAD', 'FETCH_HEAD', 'ORIG_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'BISECT_HEAD', 'AUTO_MERGE', '@']);

/** The first rule of check-ref-format (plus this module's three) that `name` breaks, or null. */
export function refFault(name: string): RefFault | null {
  if (name === '') return 'empty';
  if (name.length > MAX_REF_BYTES) return 'too_long';
  for (const ch of name) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c === 0x7f) return 'control_character';
    if (c > 0x7e) return 'not_ascii';
  }
  if (/[*?[]/.test(name)) return 'wildcard'; // rule 5
  if (/[ ~^:\\]/.test(name)) return 'forbidden_character'; // rules 4 and 10
  if (name.includes('..')) return 'double_dot'; // rule 3
  if (name.includes('@{')) return 'at_brace'; // rule 8
  if (SYMBOLIC.has(name)) return 'symbolic'; // rule 9 (`@`) and the pseudo-refs
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'bad_slash'; // rule 6
  if (name.endsWith('.')) return 'trailing_dot'; // rule 7
  // rule 1: no component begins with a dot or ends with `.lock`
  if (name.split('/').some((c) => c.startsWith('.') || c.endsWith('.lock'))) return 'bad_component';
  return null;
}

/**
 * `main` → `refs/heads/main`; a name starting with `refs/` is taken as written. Anything
 * check-ref-format refuses, a symbolic name, or `refs/x` without a third component is refused
 * with `invalid_resource` (`kind: 'ref'`).
 */
export function normalizeRef(input: string): string {
  const refuse = (fault: RefFault) =>
    new ToolgateError('invalid_resource', `${JSON.stringify(input.slice(0, 200))} is not a ref a git connector takes (${fault})`, { kind: 'ref', ref: input.slice(0, MAX_REF_BYTES), reason: fault });
  const first = refFault(input);
  if (first !== null) throw refuse(first);
  const full = input.startsWith('refs/') ? input : `refs/heads/${input}`;
  const fault = refFault(full);
  if (fault !== null) throw refuse(fault);
  if (full.split('/').length < 3) throw refuse('too_short');
  return full;
}
