import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sealReceipt, type ReceiptBody, type TaskId, type AttemptId } from '../../src/protocol/index.js';
import { callResultOf, DEFAULT_RESULT_SHAPING } from '../../src/server/index.js';

function receipt(over: Partial<ReceiptBody>) {
  return sealReceipt({
    protocol_version: 'tool-call.v1',
    task_id: 't1' as TaskId,
    attempt_id: 'a1' as AttemptId,
    logical_effect_id: null,
    idempotency_key: null,
    tool: 'fs.read',
    tool_version: '1.0.0',
    registry_revision: null,
    status: 'succeeded',
    started_at: '2026-12-02T10:00:00.000Z',
    finished_at: '2026-12-02T10:00:00.001Z',
    queued_ms: 0,
    normalized_action: null,
    decision: null,
    result: { content: 'hello' },
    error: null,
    truncated: false,
    partial: null,
    evidence: {},
    artifacts: [],
    redactions: [],
    prev_receipt_digest: null,
    ...over,
  });
}

describe('receipt → MCP tool result', () => {
  it('repeats a small result as text and summarizes a large one, each followed by the receipt id', () => {
    const r = receipt({});
    const small = callResultOf(r);
    assert.equal(small.content[0]?.text, `{"content":"hello"}\nreceipt ${r.receipt_id}`);
    const big = callResultOf(receipt({ result: { content: 'x'.repeat(300 * 1024), size: 3 } }));
    assert.match(big.content[0]?.text ?? '', /^fs\.read succeeded \(receipt \S+\); \d+ bytes of structured result: content: <307200 bytes>, size: 3\nreceipt \S+$/);
    assert.equal((big.structuredContent as { content: string }).content.length, 300 * 1024);
  });

  it('withholds a succeeded result over the message bound as limit_exceeded, naming the receipt', () => {
    const r = receipt({ result: { content: 'x'.repeat(2048) } });
    const out = callResultOf(r, { ...DEFAULT_RESULT_SHAPING, maxResultBytes: 1024 });
    assert.equal(out.isError, true);
    assert.deepEqual(Object.keys(out.structuredContent).sort(), ['error', 'receipt_id', 'status']);
    assert.equal((out.structuredContent['error'] as { code: string }).code, 'limit_exceeded');
    assert.equal(out._meta['toolgate/receipt_id'], r.receipt_id);
    assert.equal(out._meta['toolgate/status'], 'succeeded');
    assert.equal(out._meta['toolgate/withheld'], true);
    assert.ok(JSON.stringify(out).length < 1024);
  });

  it('maps every non-succeeded status to isError with the typed error and partial effects', () => {
    const r = receipt({
      status: 'failed',
      result: null,
      error: { code: 'partial_failure', message: 'second part failed', data: {} },
      partial: { applied: ['a'], unapplied: ['b'], restored: [] },
    });
    const out = callResultOf(r);
    assert.equal(out.isError, true);
    assert.deepEqual(out.structuredContent, {
      status: 'failed',
      receipt_id: r.receipt_id,
      error: { code: 'partial_failure', message: 'second part failed', data: {} },
      partial: { applied: ['a'], unapplied: ['b'], restored: [] },
    });
    // The first line is the error; the text also says which parts took effect (issue 12).
    assert.equal(
      out.content[0]?.text,
      `fs.read failed: partial_failure: second part failed (receipt ${r.receipt_id})\npartial effect: applied a; not applied b; restored nothing`,
    );
  });
});
