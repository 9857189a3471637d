import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sealReceipt, type ReceiptBody, type TaskId, type AttemptId } from '../../src/protocol/index.js';
import fc from 'fast-check';
import { callResultOf, DEFAULT_RESULT_SHAPING } from '../../src/server/index.js';
import { jsonBytesBound } from '../../src/server/call-result.js';

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

  it('withholds by the exact size, not by the bound it starts with: a result under the bound\'s limit but over the limit is sent, one over it is not', () => {
    // ASCII: the bound (6 bytes a character) is over the limit, the JSON (1 byte each) is not.
    const under = callResultOf(receipt({ result: { content: 'x'.repeat(1000) } }), { ...DEFAULT_RESULT_SHAPING, maxResultBytes: 2048 });
    assert.equal(under.isError, undefined);
    assert.equal((under.structuredContent as { content: string }).content.length, 1000);
    // Escapes: 400 control characters are 2,400 bytes of JSON, over a 2,048-byte limit.
    const over = callResultOf(receipt({ result: { content: '\u0001'.repeat(400) } }), { ...DEFAULT_RESULT_SHAPING, maxResultBytes: 2048 });
    assert.equal(over.isError, true);
    assert.equal((over.structuredContent['error'] as { data: { result_bytes: number } }).data.result_bytes, Buffer.byteLength(JSON.stringify({ content: '\u0001'.repeat(400) })));
  });

  it('jsonBytesBound is never under the JSON\'s UTF-8 bytes, and Infinity past its limit (property, against JSON.stringify)', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'grapheme' }),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie('v'), { maxLength: 6 }),
        fc.dictionary(fc.string({ unit: 'binary' }), tie('v'), { maxKeys: 6 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 4096 }), (v, limit) => {
        const json = JSON.stringify(v);
        const bytes = json === undefined ? 0 : Buffer.byteLength(json);
        const bound = jsonBytesBound(v, limit);
        assert.ok(bound >= bytes, `bound ${bound} under ${bytes} for ${json}`);
        if (bound !== Infinity) assert.ok(bound <= limit);
        assert.equal(jsonBytesBound(v, Number.MAX_SAFE_INTEGER) === Infinity, false, 'a plain value is priced');
      }),
      { numRuns: 2000 },
    );
    assert.equal(jsonBytesBound({ toJSON: () => 'x' }, 1e9), Infinity, 'a toJSON is left to JSON.stringify');
    assert.equal(jsonBytesBound({ n: 1n }, 1e9), Infinity, 'so is a BigInt');
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

describe('the text content is bounded (issue 12)', () => {
  const shaping = { ...DEFAULT_RESULT_SHAPING, textCopyLimitBytes: 4096 };

  it('an fs.read page larger than the text bound shows the lines that fit and where to read on', () => {
    const content = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const result = { path: 'a.txt', content, binary: false, sha256: 'f'.repeat(64), size: content.length, start_line: 1, end_line: 1000, total_lines: 1000, byte_offset: 0, byte_length: content.length, revision: 'r1', truncated: false, continuation: null };
    const out = callResultOf(receipt({ result }), shaping, { args: { path: 'a.txt' }, undoable: false });
    const text = out.content[0]?.text ?? '';
    assert.ok(Buffer.byteLength(text) <= 4096, `${Buffer.byteLength(text)} bytes`);
    assert.match(text, /^fs\.read a\.txt: lines 1-1000 of 1000 \(cat -n/);
    assert.match(text, /\n\[truncated: showing lines 1-\d+ of 1000\. To read on, call fs_read with \{"path":"a\.txt","start_line":\d+\}\]\nreceipt \S+$/);
    assert.equal((out.structuredContent as { content: string }).content, content);
  });

  it('line_numbers: false shows the raw lines', () => {
    const result = { path: 'a.txt', content: 'a\n\tb\n', binary: false, sha256: 'f'.repeat(64), size: 5, start_line: 1, end_line: 2, total_lines: 2, byte_offset: 0, byte_length: 5, revision: 'r1', truncated: false, continuation: null };
    const r = receipt({ result });
    const out = callResultOf(r, shaping, { args: { path: 'a.txt', line_numbers: false }, undoable: false });
    assert.equal(out.content[0]?.text, `fs.read a.txt: lines 1-2 of 2:\na\n\tb\nreceipt ${r.receipt_id}`);
  });

  it('a failure with large stream previews is cut to the bound, saying where the rest is', () => {
    const stream = { preview: 'x'.repeat(16 * 1024), bytes: 1 << 20, omitted_bytes: (1 << 20) - 16 * 1024, artifact: null };
    const r = receipt({
      tool: 'shell.exec',
      status: 'failed',
      result: { exit_code: 1, signal: null, reason: 'exited', duration_ms: 5, stdout: stream, stderr: stream, changed_paths: null, changed_paths_truncated: false, killed_after_exit: 0, collected: [], notes: [] },
      error: { code: 'execution_failed', message: 'the command exited with 1', data: { reason: 'exited', exit_code: 1 } },
    });
    const text = callResultOf(r, shaping).content[0]?.text ?? '';
    assert.ok(Buffer.byteLength(text) <= 4096, `${Buffer.byteLength(text)} bytes`);
    assert.match(text, /^shell\.exec failed: execution_failed: the command exited with 1 \(receipt \S+\)\nexit code 1 \(reason: exited\)/);
    assert.match(text, new RegExp(`\\[… \\d+ bytes of this text omitted; the whole result is in structuredContent and receipt ${r.receipt_id}\\]$`));
  });
});
