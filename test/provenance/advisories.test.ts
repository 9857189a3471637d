// CI's advisory check (scripts/advisories.mjs) decides from npm audit's answer: a high or
// critical advisory in a runtime dependency fails unless accepted (until a date); a registry
// that cannot be asked is said plainly and does not fail the run.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';

const script = join(import.meta.dirname, '../../scripts/advisories.mjs');
const d = tempDirs('tg-advisories');
after(() => d.cleanup());

/** The shape of `npm audit --json` (auditReportVersion 2) with one advisory. */
function auditAnswer(severity: string): unknown {
  return {
    auditReportVersion: 2,
    vulnerabilities: {
      picomatch: {
        name: 'picomatch',
        severity,
        isDirect: true,
        via: [{ source: 1101, name: 'picomatch', dependency: 'picomatch', title: 'ReDoS in extglob', url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc', severity, range: '<4.0.8' }],
        effects: [],
        range: '<4.0.8',
        nodes: ['node_modules/picomatch'],
        fixAvailable: true,
      },
      'some-parent': { name: 'some-parent', severity, isDirect: false, via: ['picomatch'], effects: [], range: '*', nodes: ['node_modules/some-parent'], fixAvailable: true },
    },
    metadata: { vulnerabilities: { info: 0, low: 0, moderate: severity === 'moderate' ? 1 : 0, high: severity === 'high' ? 1 : 0, critical: 0, total: 1 }, dependencies: { prod: 129, dev: 0, optional: 30, peer: 0, peerOptional: 0, total: 129 } },
  };
}

function run(answer: unknown, accepted: unknown = []): { code: number; out: string } {
  const from = join(d.base, `answer-${Math.random().toString(36).slice(2)}.json`);
  const acc = `${from}.accepted`;
  writeFileSync(from, JSON.stringify(answer));
  writeFileSync(acc, JSON.stringify(accepted));
  const r = spawnSync(process.execPath, [script, '--from', from, '--accepted', acc], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, out: r.stdout };
}

describe('advisory check', () => {
  it('a high advisory in a runtime dependency fails the run and is named', () => {
    const r = run(auditAnswer('high'));
    assert.equal(r.code, 1);
    assert.match(r.out, /FAIL {2}high {5}picomatch <4\.0\.8: ReDoS in extglob \(GHSA-aaaa-bbbb-cccc\)/);
    assert.match(r.out, /advisory check: FAIL — 1 high or critical/);
  });

  it('an accepted one passes until its date, then fails again', () => {
    const accepted = (until: string): unknown => [{ advisory: 'GHSA-aaaa-bbbb-cccc', package: 'picomatch', reason: 'only reached with trusted globs', until }];
    const ok = run(auditAnswer('high'), accepted('2999-01-01'));
    assert.equal(ok.code, 0);
    assert.match(ok.out, /note {2}high .*accepted until 2999-01-01: only reached with trusted globs/);
    assert.equal(run(auditAnswer('high'), accepted('2000-01-01')).code, 1);
  });

  it('a moderate advisory is printed and does not fail', () => {
    const r = run(auditAnswer('moderate'));
    assert.equal(r.code, 0);
    assert.match(r.out, /note {2}moderate picomatch/);
    assert.match(r.out, /advisory check: ok$/m);
  });

  it('a registry without the audit endpoint is reported as NOT RUN, not as clean, and does not fail', () => {
    // What this machine's registry answers (405 to the bulk advisory POST), saved as npm prints it.
    const r = run({ message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk', statusCode: 405, error: { summary: '', detail: '' } });
    assert.equal(r.code, 0);
    assert.match(r.out, /^advisory check: NOT RUN — the registry's advisory service could not be asked \(405 Method Not Allowed/m);
    assert.doesNotMatch(r.out, /advisory check: ok/);
  });
});
