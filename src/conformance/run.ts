// The scorecard: every family against one server, counted per outcome, with a verdict that fails
// on any escape, unsafe answer, crash or hang.
import { ToolgateError } from '../protocol/index.js';
import { FAILING, OUTCOMES, type AttemptResult, type KitContext, type Outcome } from './attempt.js';
import { absoluteAndEncoded, edits, links, processes, secrets, specialFiles, traversal, unicode } from './families.js';
import { continuationPaging } from './continuation.js';
import { schemaFuzz } from './fuzz.js';
import { makeFixture } from './fixture.js';
import type { ConformanceMap } from './map.js';
import { renameRace } from './race.js';
import { Target, type TargetSpec } from './target.js';

export const FAMILIES = [traversal, absoluteAndEncoded, links, specialFiles, continuationPaging, edits, unicode, secrets, schemaFuzz, processes, renameRace] as const;

export interface FamilyRow {
  readonly family: string;
  readonly attempts: number;
  readonly counts: Readonly<Record<Outcome, number>>;
}

export interface Scorecard {
  readonly target: string;
  readonly map: string;
  readonly tools: readonly string[];
  readonly families: readonly FamilyRow[];
  readonly totals: Readonly<Record<Outcome, number>>;
  readonly attempts: readonly AttemptResult[];
  /** `pass`: no escape, unsafe answer, crash or hang. */
  readonly verdict: 'pass' | 'fail';
  readonly server_starts: number;
}

const zero = (): Record<Outcome, number> => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;

/**
 * Runs the kit. `spec` may hold `{root}` in its argv or URL: replaced by the root the kit made.
 * `root`: the directory a running server (a URL target) already serves; the kit works around it.
 */
export async function runConformance(spec: TargetSpec, map: ConformanceMap, o: { boundMs?: number; label?: string; root?: string } = {}): Promise<Scorecard> {
  const fx = makeFixture(o.root);
  const sub = (s: string) => s.replaceAll('{root}', fx.root);
  const target = new Target({ ...spec, ...(spec.argv ? { argv: spec.argv.map(sub) } : {}), ...(spec.url ? { url: sub(spec.url) } : {}) });
  try {
    let tools: string[];
    try {
      tools = await target.tools();
    } catch (e) {
      const message = (e as Error).message;
      throw new ToolgateError('upstream_unavailable', `the kit cannot reach the target: ${message}`, { upstream: o.label ?? spec.url ?? (spec.argv ?? []).join(' '), tool: null, reason: 'start_failed', restarts: 0, message });
    }
    const k: KitContext = { target, map, fx, boundMs: o.boundMs ?? 10_000 };
    const attempts: AttemptResult[] = [];
    for (const family of FAMILIES) attempts.push(...(await family(k)));
    const rows = new Map<string, Record<Outcome, number>>();
    const totals = zero();
    for (const a of attempts) {
      const row = rows.get(a.family) ?? zero();
      row[a.outcome]++;
      rows.set(a.family, row);
      totals[a.outcome]++;
    }
    const families = [...rows].map(([family, counts]) => ({ family, attempts: Object.entries(counts).filter(([k2]) => k2 !== 'not_run').reduce((n, [, c]) => n + c, 0), counts }));
    const failing = [...FAILING].reduce((n, out) => n + totals[out], 0);
    return { target: o.label ?? spec.url ?? (spec.argv ?? []).join(' '), map: map.name, tools, families, totals, attempts, verdict: failing === 0 ? 'pass' : 'fail', server_starts: target.starts };
  } finally {
    await target.close();
    fx.dispose();
  }
}

/** The scorecard as a table per family (what `toolgate conformance` prints without --json). */
export function formatScorecard(s: Scorecard): string {
  const cols: readonly Outcome[] = ['refused_typed', 'refused', 'allowed', 'escaped', 'unsafe', 'crashed', 'hung', 'not_run'];
  const lines = [
    `target: ${s.target}`,
    `map: ${s.map} (${s.tools.length} tools listed; the server was started ${s.server_starts} time(s))`,
    '',
    `| family | attempts | ${cols.join(' | ')} |`,
    `|---|---|${cols.map(() => '---').join('|')}|`,
    ...s.families.map((r) => `| ${r.family} | ${r.attempts} | ${cols.map((c) => r.counts[c]).join(' | ')} |`),
    `| **all** | ${s.families.reduce((n, r) => n + r.attempts, 0)} | ${cols.map((c) => s.totals[c]).join(' | ')} |`,
    '',
  ];
  const bad = s.attempts.filter((a) => FAILING.has(a.outcome));
  if (bad.length > 0) {
    lines.push('Failing attempts:');
    for (const a of bad) lines.push(`- [${a.outcome}] ${a.family}: ${a.name} — ${a.detail}`);
    lines.push('');
  }
  lines.push(`verdict: ${s.verdict === 'pass' ? 'PASS (no escape, unsafe answer, crash or hang)' : 'FAIL'}`);
  return lines.join('\n');
}
