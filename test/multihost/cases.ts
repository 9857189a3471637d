// Issue 15: several hosts, one state. Each case runs two REAL runtime processes ("hosts" a and b,
// host-child.ts), each with its own workspace copy and state dir and its own TOOLGATE_HOST_ID,
// on one store. The effect is the probe tool's ledger: a stand-in for an external system both
// hosts reach (their workspaces are copies, so a workspace write on a is not visible on b).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { PROTOCOL_VERSION, type Receipt } from '../../src/protocol/index.js';
import { ledgerLines } from '../support/probe-tools.js';
import { Fleet, type Host } from './hosts.js';
import { auditVerify } from './audit-cli.js';
import type { HostConfig } from './protocol.js';

export interface HostBackend {
  /**
   * A fresh, empty state both hosts open. `cut`, when the backend has one, makes the store
   * unreachable from the first host only (open connections reset, new ones refused); `restore`
   * lets it connect again.
   */
  fresh(): Promise<{
    readonly stores: readonly [HostConfig['store'], HostConfig['store']];
    /** How `toolgate audit verify` names this store (`--store-url URL`, or the SQLite file's `--state-dir`). */
    readonly cliStore: readonly string[];
    /** Alters a stored receipt behind the store's back, as an attacker with the database would. */
    readonly tamper: (receiptId: string) => Promise<void>;
    readonly cut?: () => Promise<void>;
    readonly restore?: () => Promise<void>;
    readonly drop: () => Promise<void>;
  }>;
  /** Whether `fresh()` gives a cut (a network between the host and the store). */
  readonly canCut: boolean;
}

const PROBE_AND_READS = `
  @id("reads") permit (principal, action == Toolgate::Action::"fs.read", resource is Toolgate::Path);
  @id("probe") permit (principal, action == Toolgate::Action::"test.effect", resource);`;

const call = (task: string, label: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  protocol_version: PROTOCOL_VERSION,
  task_id: task,
  tool: 'test.effect',
  arguments: { label },
  ...extra,
});

const settledBy = (r: Receipt): unknown => (r.evidence['reconciliation'] as { settled?: string } | undefined)?.settled;

/** Retries on `host` while the other host's record is still in flight (effect_in_progress), within a bound. */
async function retryUntilSettled(host: Host, env: Record<string, unknown>, boundMs = 120_000): Promise<{ receipt: Receipt; inProgress: number }> {
  const until = Date.now() + boundMs;
  let inProgress = 0;
  for (;;) {
    const r = await host.call(env);
    if (r.error?.code !== 'effect_in_progress') return { receipt: r, inProgress };
    inProgress++;
    if (Date.now() > until) throw new Error(`still effect_in_progress after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export function describeHostCases(name: string, backend: HostBackend): void {
  describe(`two hosts, one ${name} store`, { timeout: 600_000 }, () => {
    let fleet: Fleet;
    let state: Awaited<ReturnType<HostBackend['fresh']>>;
    const hosts = async (extra: Omit<HostConfig, 'workspace' | 'stateDir' | 'ledger' | 'store'> = {}): Promise<[Host, Host]> => {
      fleet = new Fleet();
      state = await backend.fresh();
      return Promise.all([fleet.start('host-a', { store: state.stores[0], ...extra }), fleet.start('host-b', { store: state.stores[1], ...extra })]);
    };
    const done = async (): Promise<void> => {
      await fleet?.stopAll();
      await state?.drop();
    };

    describe('a host SIGKILLed after its effect, before its receipt', () => {
      after(done);
      it('the retry on the other host reconciles the effect exactly once and recovers the receipt; later retries replay it', async () => {
        const [a, b] = await hosts();
        // A short deadline: b may take a's record over once it passed (plus the liveness grace).
        const env = call('mh-crash', 'paid-once', { idempotency_key: 'crash-1', deadline: new Date(Date.now() + 8_000).toISOString() });
        await a.call(env, 'kill-at-commit').catch(() => undefined);
        assert.equal((await a.exited).signal, 'SIGKILL');
        assert.deepEqual(ledgerLines(fleet.ledger), ['paid-once'], 'a made the effect before it died');
        const retry = { ...env, deadline: new Date(Date.now() + 60_000).toISOString() };
        const { receipt, inProgress } = await retryUntilSettled(b, retry);
        assert.equal(receipt.status, 'succeeded', JSON.stringify(receipt.error));
        assert.equal(settledBy(receipt), 'completed');
        assert.ok(inProgress >= 0);
        const again = await b.call(retry);
        assert.equal(again.replay, true);
        assert.equal(again.receipt_id, receipt.receipt_id);
        assert.deepEqual(ledgerLines(fleet.ledger), ['paid-once'], 'never repeated');
      });
    });

    describe('a host SIGKILLed after its intent, before its effect', () => {
      after(done);
      it('the other host settles it released once the deadline has passed: the key is expired (no effect), a new key runs once', async () => {
        const [a, b] = await hosts();
        const env = call('mh-early', 'not-yet', { idempotency_key: 'early-1', deadline: new Date(Date.now() + 8_000).toISOString() });
        await a.call(env, 'kill-after-sent').catch(() => undefined);
        assert.equal((await a.exited).signal, 'SIGKILL');
        assert.deepEqual(ledgerLines(fleet.ledger), [], 'a died before the effect');
        // Another host may take the record over only after its deadline (plus the grace), and the
        // deadline belongs to the logical effect: released, but too late to run under this key.
        const { receipt } = await retryUntilSettled(b, { ...env, deadline: new Date(Date.now() + 60_000).toISOString() });
        assert.deepEqual([receipt.status, receipt.error?.code], ['expired', 'deadline_expired']);
        assert.deepEqual(ledgerLines(fleet.ledger), [], 'nothing ran');
        const fresh = await b.call({ ...env, idempotency_key: 'early-2', deadline: new Date(Date.now() + 60_000).toISOString() });
        assert.equal(fresh.status, 'succeeded', JSON.stringify(fresh.error));
        assert.deepEqual(ledgerLines(fleet.ledger), ['not-yet'], 'the effect ran once');
      });
    });

    describe('100 concurrent calls with one idempotency key over two hosts', () => {
      after(done);
      it('make exactly one effect; every other call replays or is told the effect is in progress', async () => {
        const [a, b] = await hosts();
        const env = call('mh-race', 'once', { idempotency_key: 'race-1', arguments: { label: 'once', after_ms: 300 } });
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).call(env)));
        const outcomes = new Map<string, number>();
        for (const r of results) {
          const k = r.status === 'succeeded' ? (r.replay ? 'replay' : 'ran') : (r.error?.code ?? r.status);
          outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
        }
        const tally = JSON.stringify(Object.fromEntries(outcomes));
        assert.deepEqual(ledgerLines(fleet.ledger), ['once'], `one effect (${tally})`);
        assert.equal(outcomes.get('ran'), 1, tally);
        for (const k of outcomes.keys()) assert.ok(['ran', 'replay', 'effect_in_progress'].includes(k), `unexpected outcome ${k}: ${tally}`);
        const last = await a.call(env);
        assert.equal(last.replay, true);
      });
    });

    describe('an approval granted on one host', () => {
      after(done);
      it('is honoured on the other, decided only once, and its effect runs once', async () => {
        const [a, b] = await hosts({ policy: PROBE_AND_READS.replace('@id("probe")', '@id("probe") @approval("required")') });
        const env = call('mh-approve', 'deploy', { idempotency_key: 'deploy-1' });
        const first = await a.call(env);
        assert.equal(first.error?.code, 'approval_required');
        const id = first.error?.data['approval_id'] as string;
        assert.deepEqual(await b.value<string[]>({ op: 'pending-approvals' }), [id], 'b sees the request a made');
        // Both hosts decide at once: one decision stands, the other is refused.
        const decided = await Promise.all([a.request({ op: 'approve', id, by: 'alice' }), b.request({ op: 'approve', id, by: 'bob' })]);
        assert.equal(decided.filter((d) => d.ok).length, 1, JSON.stringify(decided));
        const onB = await b.call(env);
        assert.equal(onB.status, 'succeeded', JSON.stringify(onB.error));
        const onA = await a.call(env);
        assert.equal(onA.replay, true, 'the same call on a replays b\'s receipt');
        assert.deepEqual(ledgerLines(fleet.ledger), ['deploy']);
        const other = await a.call(call('mh-approve', 'deploy-2'));
        assert.equal(other.error?.code, 'approval_required', 'the approval covers that one action only');
      });
    });

    describe('a budget', () => {
      after(done);
      it('is shared: what a spends, b sees, and the call past it is refused on either host', async () => {
        const [a, b] = await hosts({ policy: PROBE_AND_READS, grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], budget: { calls: 3 } } });
        assert.equal((await a.call(call('mh-budget', 'one'))).status, 'succeeded');
        assert.equal((await a.call(call('mh-budget', 'two'))).status, 'succeeded');
        const seen = await b.value<{ calls: { used: number } }>({ op: 'usage', task: 'mh-budget' });
        assert.equal(seen.calls.used, 2, 'b sees a\'s spending');
        assert.equal((await b.call(call('mh-budget', 'three'))).status, 'succeeded');
        const past = await Promise.all([a.call(call('mh-budget', 'four')), b.call(call('mh-budget', 'five'))]);
        assert.deepEqual(past.map((r) => r.error?.code), ['budget_exhausted', 'budget_exhausted']);
        assert.deepEqual(ledgerLines(fleet.ledger), ['one', 'two', 'three']);
      });
    });

    describe('the audit chain', () => {
      after(done);
      it('one task\'s receipts, written by both hosts, form one chain either host verifies; an altered row is named', async () => {
        const [a, b] = await hosts();
        const written: Receipt[] = [];
        for (let i = 0; i < 6; i++) written.push(await (i % 2 ? a : b).call(call('mh-audit', `r${i}`)));
        assert.deepEqual(written.map((r) => r.status), Array(6).fill('succeeded'));
        type Report = { ok: boolean; receipts: number; broken: { receipt_id: string }[] };
        const [ra, rb] = await Promise.all([a.value<Report>({ op: 'verify' }), b.value<Report>({ op: 'verify' })]);
        assert.equal(ra.ok, true);
        assert.equal(rb.ok, true);
        assert.equal(rb.receipts, 6);
        const cli = auditVerify(fleet.workspaceOf('host-a'), state.cliStore);
        assert.equal(cli.code, 0, cli.out + cli.err);
        assert.match(cli.out, /^ok: 6 receipts in 1 tasks/);
        const forged = (written[3] as Receipt).receipt_id; // written by a, checked on b
        await state.tamper(forged);
        const after = await b.value<Report>({ op: 'verify' });
        assert.equal(after.ok, false);
        assert.equal(after.broken[0]?.receipt_id, forged);
        const broken = auditVerify(fleet.workspaceOf('host-a'), state.cliStore);
        assert.equal(broken.code, 1, broken.out + broken.err);
        assert.match(broken.out, new RegExp(`BROKEN[\\s\\S]*${forged}`));
      });
    });

    // Only a store reached over a network can lose it (SQLite's own failures: test/store/store-failure.test.ts).
    if (backend.canCut) describe('a host that loses its database mid-call', () => {
      after(done);
      it('fails typed (store_unavailable) and its effect is reconciled once the database is back', async () => {
        const [a, b] = await hosts();
        const env = call('mh-cut', 'cut-once', { idempotency_key: 'cut-1' });
        const pending = a.call(env, 'hold-at-commit').then(
          (r) => ({ receipt: r, code: null as string | null, message: '' }),
          (e: { code?: string; message?: string }) => ({ receipt: null, code: e.code ?? 'unknown', message: e.message ?? '' }),
        );
        await a.event('at-commit');
        assert.deepEqual(ledgerLines(fleet.ledger), ['cut-once'], 'the effect happened');
        const { cut, restore } = state;
        assert.ok(cut && restore);
        await cut();
        try {
          await a.request({ op: 'resume' });
          const got = await pending;
          assert.equal(got.code, 'store_unavailable', JSON.stringify(got));
        } finally {
          await restore();
        }
        // a is alive: it takes its own orphaned record and settles it through reconcile().
        const report = await a.value<{ entries: { settled: string }[] }>({ op: 'reconcile' });
        assert.deepEqual(report.entries.map((e) => e.settled), ['completed']);
        const retry = await b.call(env);
        assert.equal(retry.replay, true, JSON.stringify(retry.error));
        assert.deepEqual(ledgerLines(fleet.ledger), ['cut-once'], 'never repeated');
      });
    });
  });
}
