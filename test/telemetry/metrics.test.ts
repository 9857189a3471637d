// The Prometheus metrics of real calls, scraped over HTTP from the loopback endpoint: each
// counter moves by what the calls did (a success, a validation failure, a filesystem and a
// network denial, a preimage mismatch, a truncated read, a connector effect, an ambiguous
// POST whose deadline passed and its reconciliation) and the gauges read the runtime's state.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveMetrics, ToolgateMetrics, type MetricsServing } from '../../src/telemetry/index.js';
import { envelope } from '../support/fixtures.js';
import { Provider } from '../tools/http-request/provider.js';
import { grantFor, HOST_POLICY, httpRuntime, PROVIDER_ADDRESS, type HttpRuntime } from '../tools/http-request/harness.js';

/** The provider's policy, and workspace paths for the filesystem calls. */
const grant = { ...grantFor(), effects: ['read', 'write', 'network', 'send', 'charge'], read: ['**'], write: ['**'] } as never;
const policies = [{ name: 'metrics.cedar', text: `${HOST_POLICY}\npermit (principal, action, resource is Toolgate::Path);` }];
import { scrape, valueOf } from './scrape.js';

describe('metrics at /metrics', () => {
  let provider: Provider;
  let metrics: ToolgateMetrics;
  let t: HttpRuntime;
  let serving: MetricsServing;
  before(async () => {
    provider = await Provider.start(PROVIDER_ADDRESS);
    metrics = new ToolgateMetrics();
    t = await httpRuntime({ observers: [metrics], policies, grant, inlineResultBytes: 1024 });
    metrics.watch(t.rt);
    serving = await serveMetrics(metrics, 0);
  });
  after(async () => {
    await serving.close();
    await t.done();
    await provider.close();
  });

  it('counters by tool, version and code move with the calls; the ambiguous gauge and reconciliation follow the effect', async () => {
    const rt = t.rt;
    const url = `http://${PROVIDER_ADDRESS}:${provider.port}`;
    const call = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => rt.call(envelope(tool, args, { task_id: 'task-metrics', ...extra }));
    writeFileSync(join(t.workspace, 'a.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(t.workspace, '.env'), 'X=1\n');
    const empty = await scrape(serving.url);
    assert.equal(valueOf(empty, 'toolgate_calls_total'), 0);
    assert.equal(valueOf(empty, 'toolgate_admission_limit'), 8);

    const first = await call('fs.read', { path: 'a.txt' });
    assert.equal(first.status, 'succeeded', JSON.stringify(first.error));
    assert.equal((await call('fs.read', { path: 'a.txt', max_lines: 1 })).truncated, true);
    // A result past inline_result_bytes is kept as an artifact.
    writeFileSync(join(t.workspace, 'big.txt'), 'x'.repeat(4096));
    const big = await call('fs.read', { path: 'big.txt' });
    assert.equal(big.artifacts.length, 1);
    assert.equal((await call('fs.read', { path: 'a.txt', nope: 1 })).error?.code, 'invalid_arguments');
    assert.equal((await call('fs.read', { path: '.env' })).error?.code, 'secret_path');
    assert.equal((await call('http.request', { method: 'GET', url: 'http://127.0.0.3:9/x' })).status, 'denied');
    const wrong = createHash('sha256').update('not the content').digest('hex');
    assert.equal((await call('fs.write', { path: 'a.txt', content: 'x', mode: 'replace', expected_sha256: wrong })).error?.code, 'precondition_failed');
    assert.equal((await call('http.request', { method: 'POST', url: `${url}/items`, body: 'one' }, { idempotency_key: 'm-1' })).status, 'succeeded');

    // The provider takes the effect and never answers: the deadline passes after the send.
    provider.behaviour = 'hold';
    const deadline = new Date(Date.now() + 2_000).toISOString();
    const held = await call('http.request', { method: 'POST', url: `${url}/items`, body: 'two' }, { idempotency_key: 'm-2', deadline });
    provider.behaviour = 'answer';
    assert.equal(held.status, 'ambiguous');

    const s = await scrape(serving.url);
    const v = (name: string, labels: Record<string, string> = {}): number => valueOf(s, name, labels);
    const read = { tool: 'fs.read', version: first.tool_version ?? '' };
    assert.equal(v('toolgate_calls_total', { ...read, status: 'succeeded' }), 3);
    assert.equal(v('toolgate_calls_total'), 9);
    assert.equal(v('toolgate_validation_failures_total', { ...read, code: 'invalid_arguments' }), 1);
    assert.equal(v('toolgate_denials_total', { ...read, code: 'secret_path' }), 1);
    assert.equal(v('toolgate_denials_total', { tool: 'http.request', code: 'destination_refused' }), 1);
    assert.equal(v('toolgate_denied_resource_attempts_total', { tool: 'fs.read', resource_kind: 'path' }), 1);
    assert.equal(v('toolgate_denied_resource_attempts_total', { tool: 'http.request', resource_kind: 'host' }), 1);
    assert.equal(v('toolgate_mutation_conflicts_total', { tool: 'fs.write', code: 'precondition_failed' }), 1);
    assert.equal(v('toolgate_truncated_results_total', { tool: 'fs.read' }), 1);
    const destination = `${PROVIDER_ADDRESS}:${provider.port}`;
    assert.equal(v('toolgate_connector_effects_total', { tool: 'http.request', destination, effect_class: 'send', decision: 'allowed', status: 'succeeded' }), 1);
    assert.equal(v('toolgate_connector_effects_total', { tool: 'http.request', destination, status: 'ambiguous' }), 1);
    assert.equal(v('toolgate_timeouts_total', { tool: 'http.request', kind: 'deadline' }), 1);
    assert.equal(v('toolgate_ambiguous_effects_total', { tool: 'http.request' }), 1);
    assert.equal(v('toolgate_artifact_bytes_total', { tool: 'fs.read' }), big.artifacts[0]?.bytes);
    assert.equal(v('toolgate_call_duration_seconds_count', { tool: 'fs.read' }), 5);
    assert.equal(v('toolgate_stage_duration_seconds_count', { tool: 'fs.read', stage: 'execute' }), 3);
    assert.equal(v('toolgate_stage_duration_seconds_count', { tool: 'http.request', stage: 'admit' }), 2);
    assert.equal(v('toolgate_ambiguous_effects'), 1);
    assert.ok(v('toolgate_ambiguous_effect_oldest_age_seconds') >= 0);
    assert.equal(v('toolgate_admission_in_flight'), 0);
    assert.equal(v('toolgate_admission_queued'), 0);

    const report = await rt.reconcile();
    assert.deepEqual(
      report.entries.map((e) => e.settled),
      ['completed'],
    );
    const after = await scrape(serving.url);
    assert.equal(valueOf(after, 'toolgate_reconciliations_total', { tool: 'http.request', outcome: 'completed', by: 'reconcile' }), 1);
    assert.equal(valueOf(after, 'toolgate_ambiguous_effects'), 0);
    assert.equal(valueOf(after, 'toolgate_ambiguous_effect_oldest_age_seconds'), 0);
  });

  it('the saturation gauges read the admission queue while calls wait', async () => {
    const local = new ToolgateMetrics();
    const held = await httpRuntime({ observers: [local], concurrency: 1 });
    local.watch(held.rt);
    const url = `http://${PROVIDER_ADDRESS}:${provider.port}`;
    provider.behaviour = 'hold';
    try {
      // The first holds the slot past the second's deadline: the second expires in the queue. The
      // second starts only once the first holds the slot (started together, either could get it).
      const call = (i: number, ms: number) => held.rt.call(envelope('http.request', { method: 'POST', url: `${url}/q`, body: String(i) }, { task_id: 'task-q', idempotency_key: `q-${i}`, deadline: new Date(Date.now() + ms).toISOString() }));
      const gauges = async (): Promise<{ active: number; queued: number }> => {
        const s = await local.scrape();
        const m = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(s.body)?.[1] ?? NaN);
        return { active: m('toolgate_admission_in_flight'), queued: m('toolgate_admission_queued') };
      };
      const until = async (want: { active: number; queued: number }): Promise<{ active: number; queued: number }> => {
        let seen = await gauges();
        for (let i = 0; i < 1_000 && !(seen.active === want.active && seen.queued === want.queued); i++) {
          await new Promise((r) => setTimeout(r, 20));
          seen = await gauges();
        }
        return seen;
      };
      const first = call(0, 10_000);
      assert.deepEqual(await until({ active: 1, queued: 0 }), { active: 1, queued: 0 });
      const calls = [first, call(1, 3_000)];
      assert.deepEqual(await until({ active: 1, queued: 1 }), { active: 1, queued: 1 });
      const ended = await Promise.all(calls);
      assert.deepEqual(
        ended.map((r) => r.status),
        ['ambiguous', 'expired'],
      );
      const text = (await local.scrape()).body;
      assert.match(text, /toolgate_timeouts_total\{tool="http.request",kind="queue"\} 1/);
    } finally {
      provider.behaviour = 'answer';
      await held.done();
    }
  });
});
