// Spans of real calls, exported over real OTLP/HTTP (the SDK's batch processor and the JSON
// exporter) to a receiver in this test: one `execute_tool {tool}` span per call with the GenAI
// attributes, a child per stage, and the receipt's redaction applied to everything they say.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, STAGES, type Runtime } from '../../src/runtime/index.js';
import { startTracing, tracesUrl, type Tracing } from '../../src/telemetry/index.js';
import type { Receipt } from '../../src/protocol/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const SPAN_KIND_INTERNAL = 1;
const STATUS_ERROR = 2;

async function tracedRuntime(receiver: OtlpReceiver, secrets: readonly string[] = []): Promise<{ rt: Runtime; tracing: Tracing; workspace: string; done: () => Promise<void> }> {
  const dirs = tempDirs('tg-spans');
  const tracing = await startTracing({ url: tracesUrl(receiver.endpoint), headers: { 'x-test-key': 'k1' } });
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tracerProvider: tracing.provider, secrets });
  return {
    rt,
    tracing,
    workspace: dirs.workspace,
    done: async () => {
      await rt.close();
      await tracing.shutdown();
      dirs.cleanup();
    },
  };
}

function rootOf(receiver: OtlpReceiver, receipt: Receipt): { root: ReceivedSpan; stages: ReceivedSpan[] } {
  const found = receiver.calls().find((c) => c.root.attributes['toolgate.receipt.id'] === receipt.receipt_id);
  return found ?? assert.fail(`no span for ${receipt.receipt_id}`);
}

describe('spans over OTLP', () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await OtlpReceiver.start();
  });
  after(() => receiver.close());

  it('a call is one execute_tool span with the GenAI and toolgate attributes and a child per stage, in order, inside it', async () => {
    const t = await tracedRuntime(receiver);
    let ok: Receipt;
    let denied: Receipt;
    try {
      writeFileSync(join(t.workspace, 'a.txt'), 'hello\n');
      writeFileSync(join(t.workspace, '.env'), 'X=1\n');
      ok = await t.rt.call(envelope('fs.read', { path: 'a.txt' }, { task_id: 'task-spans' }));
      denied = await t.rt.call(envelope('fs.read', { path: '.env' }, { task_id: 'task-spans' }));
      assert.equal(ok.status, 'succeeded');
      assert.equal(denied.status, 'denied');
    } finally {
      await t.done(); // shutdown flushes the batch
    }
    assert.equal(receiver.headers.at(-1)?.['x-test-key'], 'k1');
    const { root, stages } = rootOf(receiver, ok);
    assert.equal(root.name, 'execute_tool fs.read');
    assert.equal(root.kind, SPAN_KIND_INTERNAL);
    assert.equal(root.parentSpanId, null);
    assert.equal(root.scope, 'toolgate');
    assert.equal(root.resource['service.name'], 'toolgate');
    const a = root.attributes;
    assert.equal(a['gen_ai.operation.name'], 'execute_tool');
    assert.equal(a['gen_ai.tool.name'], 'fs.read');
    assert.equal(a['gen_ai.tool.type'], 'extension');
    assert.equal(a['gen_ai.tool.call.id'], ok.receipt_id);
    assert.equal(typeof a['gen_ai.tool.description'], 'string');
    assert.equal(a['toolgate.task.id'], 'task-spans');
    assert.equal(a['toolgate.status'], 'succeeded');
    assert.equal(a['toolgate.tool.version'], ok.tool_version);
    assert.equal(a['toolgate.effect_class'], 'read');
    assert.equal(a['toolgate.decision.outcome'], 'allow');
    assert.equal(a['toolgate.policy.version'], ok.decision?.policy_version);
    assert.equal(a['toolgate.truncated'], false);
    assert.equal(a['toolgate.replay'], false);
    assert.equal(typeof a['toolgate.duration_ms'], 'number');
    assert.equal(a['error.type'], undefined);
    assert.equal(root.status.code, 0);
    assert.deepEqual(
      stages.map((s) => s.name),
      STAGES.map((s) => `toolgate.${s}`),
    );
    for (const s of stages) {
      assert.equal(s.traceId, root.traceId);
      assert.ok(s.start >= root.start && s.end <= root.end, `${s.name} lies inside the call`);
      assert.ok(s.end >= s.start);
    }
    for (let i = 1; i < stages.length; i++) assert.ok((stages[i] as ReceivedSpan).start >= (stages[i - 1] as ReceivedSpan).end, 'stages do not overlap');

    const refused = rootOf(receiver, denied);
    assert.equal(refused.root.status.code, STATUS_ERROR);
    assert.equal(refused.root.attributes['error.type'], 'secret_path');
    assert.equal(refused.root.attributes['toolgate.error.code'], 'secret_path');
    assert.equal(refused.root.events[0]?.name, 'toolgate.error');
    const failedStage = refused.stages.filter((s) => s.status.code === STATUS_ERROR);
    assert.deepEqual(
      failedStage.map((s) => s.name),
      ['toolgate.normalize'],
    );
    assert.deepEqual(
      refused.stages.map((s) => s.name),
      ['parse', 'resolve', 'validate', 'examine', 'normalize', 'redact', 'commit'].map((s) => `toolgate.${s}`),
    );
    assert.notEqual(refused.root.traceId, root.traceId, 'each call is its own trace');
  });

  it('canary: a configured secret and a detector-matched one appear in no exported span name, attribute or event', async () => {
    const canary = `canary-${randomBytes(12).toString('hex')}`;
    const token = `ghp_${randomBytes(18).toString('hex')}`; // github-token rule: ghp_ + 36 [A-Za-z0-9_]
    const before = receiver.bodies.length;
    const t = await tracedRuntime(receiver, [canary]);
    const receipts: Receipt[] = [];
    try {
      mkdirSync(join(t.workspace, 'notes'));
      writeFileSync(join(t.workspace, 'notes', 'ok.txt'), `${canary} ${token}\n`);
      for (const secret of [canary, token]) {
        // In the task id, the idempotency key, a path the error message repeats, the tool name (the span's name).
        receipts.push(await t.rt.call(envelope('fs.read', { path: `notes/${secret}.txt` }, { task_id: `t-${secret}`, idempotency_key: `k-${secret}` })));
        receipts.push(await t.rt.call(envelope('fs.read', { path: 'notes/ok.txt' }, { task_id: `t-${secret}` })));
        receipts.push(await t.rt.call(envelope(`zz.${secret.toLowerCase()}`, {}, { task_id: 'task-canary' })));
      }
    } finally {
      await t.done();
    }
    assert.deepEqual(
      receipts.map((r) => r.status),
      ['failed', 'succeeded', 'failed', 'failed', 'succeeded', 'failed'],
    );
    const bodies = receiver.bodies.slice(before);
    assert.ok(bodies.length > 0, 'spans were exported');
    const exported = bodies.join('\n');
    const roots = receiver.calls().filter((c) => receipts.some((r) => r.receipt_id === c.root.attributes['toolgate.receipt.id']));
    assert.equal(roots.length, receipts.length, 'every call has its span');
    for (const secret of [canary, token, token.toLowerCase()]) assert.equal(exported.includes(secret), false, `an exported span carries ${secret.slice(0, 10)}…`);
    // The calls did carry them: the spans say so through the redaction markers.
    assert.match(exported, /REDACTED/);
    assert.ok(roots.some((c) => c.root.name.startsWith('execute_tool zz.') && !c.root.name.includes(canary)));
  });
});
