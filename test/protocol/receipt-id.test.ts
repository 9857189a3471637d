// The receipt id (docs/protocol.md#receipt): `rcpt_`, the start time's milliseconds in 12 hex
// digits, the digest's first 20; derived from digested fields only, and ordered by start time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { legacyReceiptIdOf, receiptIdMatches, receiptIdOf, receiptSkeleton, sealReceipt, type Digest, type ReceiptBody } from '../../src/protocol/index.js';

const body = (startedAt: string, tool = 'fs.read'): ReceiptBody => ({ ...receiptSkeleton('task-1' as never, 'att-1' as never, startedAt), tool, prev_receipt_digest: null }) as ReceiptBody;

describe('receipt ids', () => {
  it('carry the start time, then the digest, in the 32 hex digits fs.undo accepts', () => {
    const r = sealReceipt(body('2026-12-06T20:26:40.123Z'));
    assert.match(r.receipt_id, /^rcpt_[0-9a-f]{32}$/);
    assert.equal(r.receipt_id.slice(5, 17), Date.parse('2026-12-06T20:26:40.123Z').toString(16).padStart(12, '0'));
    assert.equal(r.receipt_id.slice(17), r.digest.slice('sha256:'.length, 'sha256:'.length + 20));
    assert.equal(r.receipt_id, receiptIdOf(r.digest, r.started_at));
  });

  it('sort as their calls started, whatever their digests', () => {
    const times = Array.from({ length: 200 }, (_, i) => new Date(Date.UTC(2026, 11, 6) + i * 37).toISOString());
    const ids = times.map((t, i) => sealReceipt(body(t, `tool.n${i % 7}`)).receipt_id);
    assert.deepEqual([...ids].sort(), ids);
    // The digests alone (the old form) are in no such order.
    const legacy = times.map((t, i) => legacyReceiptIdOf(sealReceipt(body(t, `tool.n${i % 7}`)).digest));
    assert.notDeepEqual([...legacy].sort(), legacy);
  });

  it('change when any digested field does, and are matched in either form', () => {
    const a = sealReceipt(body('2026-12-06T20:26:40.123Z', 'fs.read'));
    const b = sealReceipt(body('2026-12-06T20:26:40.123Z', 'fs.list'));
    assert.notEqual(a.receipt_id, b.receipt_id);
    assert.equal(receiptIdMatches(a.receipt_id, a.digest, a.started_at), true);
    assert.equal(receiptIdMatches(legacyReceiptIdOf(a.digest), a.digest, a.started_at), true, 'receipts written before the change keep their ids');
    assert.equal(receiptIdMatches(b.receipt_id, a.digest, a.started_at), false);
    assert.equal(receiptIdMatches(receiptIdOf(a.digest, '2026-12-06T20:26:40.124Z'), a.digest, a.started_at), false, 'the time is the digested started_at');
  });

  it('count a start time that does not parse, or lies outside 12 hex digits, at the nearest bound', () => {
    const d = `sha256:${'ab'.repeat(32)}` as Digest;
    assert.equal(receiptIdOf(d, 'not a time'), `rcpt_000000000000${'ab'.repeat(10)}`);
    assert.equal(receiptIdOf(d, '1960-01-01T00:00:00.000Z'), `rcpt_000000000000${'ab'.repeat(10)}`);
    assert.equal(receiptIdOf(d, '+275760-09-13T00:00:00.000Z'), `rcpt_ffffffffffff${'ab'.repeat(10)}`);
  });
});
