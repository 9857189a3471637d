#!/usr/bin/env node
// CI's advisory check of the runtime dependencies (docs/release.md#advisories): `npm audit
// --omit=dev` against the registry. What it decides:
// - the registry answered: every advisory is printed; one of severity high or critical in a
//   runtime dependency fails the run (exit 1), unless .ci/advisories-accepted.json accepts it
//   (its GHSA id, a reason, and an `until` date after which the acceptance lapses);
//   low and moderate ones are printed and do not fail it.
// - the registry could not be asked (offline, a mirror without the audit endpoint, a timeout):
//   it says so plainly, names the reason, and exits 0: unreachability is not a finding, and a
//   run that checked nothing must not read as one that found nothing.
// `--from FILE` reads a saved `npm audit --json` answer instead of asking, `--accepted FILE`
// another acceptance list (tests).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const FAILING = new Set(['high', 'critical']);
const AUDIT_TIMEOUT_MS = 120_000;

function ask() {
  const from = process.argv.indexOf('--from');
  if (from !== -1) return { stdout: readFileSync(process.argv[from + 1], 'utf8'), stderr: '', timedOut: false };
  const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], { cwd: root, encoding: 'utf8', timeout: AUDIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut: r.error?.code === 'ETIMEDOUT', spawnError: r.error?.message };
}

function accepted(now) {
  const at = process.argv.indexOf('--accepted');
  const file = at === -1 ? join(root, '.ci/advisories-accepted.json') : process.argv[at + 1];
  if (!existsSync(file)) return new Map();
  const list = JSON.parse(readFileSync(file, 'utf8'));
  return new Map(list.filter((a) => Date.parse(a.until) > now).map((a) => [a.advisory, a]));
}

const answer = ask();
let report = null;
try {
  report = JSON.parse(answer.stdout);
} catch {
  report = null;
}
if (report === null || typeof report.metadata?.vulnerabilities !== 'object') {
  const why = answer.timedOut ? `no answer within ${AUDIT_TIMEOUT_MS / 1000} s` : (report?.message ?? report?.error?.summary ?? answer.spawnError ?? answer.stderr.trim().split('\n').pop() ?? 'no JSON answer');
  console.log(`advisory check: NOT RUN — the registry's advisory service could not be asked (${why}). No runtime dependency was checked for advisories in this run.`);
  process.exit(0);
}
const ok = accepted(Date.now());
const counts = report.metadata.vulnerabilities;
console.log(`advisory check: the registry answered for ${report.metadata.dependencies?.prod ?? '?'} runtime dependencies: ${['critical', 'high', 'moderate', 'low', 'info'].map((s) => `${counts[s] ?? 0} ${s}`).join(', ')}`);
let failing = 0;
for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
  for (const via of v.via ?? []) {
    if (typeof via === 'string') continue; // a package vulnerable through another: that one is listed itself
    const id = String(via.url ?? '').split('/').pop() || String(via.source ?? '');
    const acceptance = ok.get(id);
    const blocks = FAILING.has(via.severity) && acceptance === undefined;
    if (blocks) failing++;
    console.log(`  ${blocks ? 'FAIL' : 'note'}  ${via.severity.padEnd(8)} ${name} ${via.range ?? ''}: ${via.title ?? ''} (${id})${acceptance ? ` — accepted until ${acceptance.until}: ${acceptance.reason}` : ''}${v.fixAvailable ? ' — a fix is available (npm audit fix --omit=dev)' : ''}`);
  }
}
if (failing > 0) {
  console.log(`advisory check: FAIL — ${failing} high or critical advisories in runtime dependencies; update the dependency, or accept one in .ci/advisories-accepted.json with a reason and an end date (docs/release.md#advisories)`);
  process.exit(1);
}
console.log('advisory check: ok');
