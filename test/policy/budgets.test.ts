import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bindGrant, BudgetGate, CompiledGrant, type BudgetReservation, type TaskGrant } from '../../src/policy/index.js';
import { ToolgateError } from '../../src/protocol/index.js';
import { migratePolicyTables, sqlitePolicyStores } from '../../src/store/sqlite/policy-tables.js';
import Database from 'better-sqlite3';
import { NOW, stateFile, T1, T2 } from './fixtures.js';

const subject = (task = T1) => ({ tenant: 'acme', principal: 'agent', task_id: task, attempt_id: null, cancellation_epoch: 0 });
const grantWith = (budget: TaskGrant['budget'], task = T1): CompiledGrant => new CompiledGrant(bindGrant({ tools: ['*'], budget }, subject(task)));

async function exhausted(fn: () => Promise<unknown>, dimension: string): Promise<void> {
  await assert.rejects(fn, (e: unknown) => ToolgateError.isInstance(e) && e.code === 'budget_exhausted' && e.data['dimension'] === dimension);
}

describe('budgets: reserve at admission, settle at commit', () => {
  const states: { dispose(): void }[] = [];
  after(() => states.forEach((s) => s.dispose()));
  const gate = () => {
    const s = stateFile();
    states.push(s);
    return { s, gate: new BudgetGate(s.stores.budgets) };
  };

  it('calls: the call past the limit is budget_exhausted, and a refused admission reserves nothing', async () => {
    const { gate: g } = gate();
    const grant = grantWith({ calls: 2 });
    await g.settle(await g.admit(grant, T1, NOW), {});
    const held = await g.admit(grant, T1, NOW);
    await exhausted(() => g.admit(grant, T1, NOW), 'calls');
    assert.deepEqual((await g.usage(T1)).calls, { used: 1, reserved: 1 });
    await g.settle(held, {});
    assert.deepEqual((await g.usage(T1)).calls, { used: 2, reserved: 0 });
    await exhausted(() => g.admit(grant, T1, NOW), 'calls');
    assert.deepEqual((await g.usage(T1)).calls, { used: 2, reserved: 0 });
  });

  it('settles with actual usage, not the estimate; a released reservation charges nothing', async () => {
    const { gate: g } = gate();
    const grant = grantWith({ bytes_read: 1000, calls: 10 });
    const r = await g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_read: 600 } });
    await exhausted(() => g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_read: 600 } }), 'bytes_read');
    await g.settle(r, { bytes_read: 100 });
    assert.deepEqual((await g.usage(T1)).bytes_read, { used: 100, reserved: 0 });
    const r2 = await g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_read: 600 } });
    await g.release(r2);
    assert.deepEqual((await g.usage(T1)).bytes_read, { used: 100, reserved: 0 });
    assert.deepEqual((await g.usage(T1)).calls, { used: 1, reserved: 0 });
  });

  it('settling twice charges once', async () => {
    const { gate: g } = gate();
    const r = await g.admit(grantWith({ cost: 10 }), T1, NOW, { estimate: { calls: 1, cost: 3 } });
    await g.settle(r, { cost: 4 });
    await g.settle(r, { cost: 4 });
    await g.release(r);
    assert.deepEqual((await g.usage(T1)).cost, { used: 4, reserved: 0 });
  });

  it('an overrun at commit is recorded and refuses the next call that needs the dimension', async () => {
    const { gate: g } = gate();
    const grant = grantWith({ bytes_written: 100, wall_ms: 1000, cpu_ms: 50 });
    await g.settle(await g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_written: 0, wall_ms: 0, cpu_ms: 0 } }), { bytes_written: 150, wall_ms: 10, cpu_ms: 50 });
    await exhausted(() => g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_written: 0 } }), 'bytes_written');
    await exhausted(() => g.admit(grant, T1, NOW, { estimate: { calls: 1, cpu_ms: 0 } }), 'cpu_ms');
    // a call that does not name the dimension (a read) is not refused by it
    await g.release(await g.admit(grant, T1, NOW, { estimate: { calls: 1, wall_ms: 0 } }));
  });

  it('calls_per_minute counts admissions in a sliding minute', async () => {
    const { gate: g } = gate();
    const grant = grantWith({ calls_per_minute: 2 });
    await g.admit(grant, T1, NOW);
    await g.admit(grant, T1, NOW + 10_000);
    await exhausted(() => g.admit(grant, T1, NOW + 59_999), 'calls_per_minute');
    await g.admit(grant, T1, NOW + 60_001);
  });

  it('budgets are per task', async () => {
    const { gate: g } = gate();
    await g.admit(grantWith({ calls: 1 }), T1, NOW);
    await exhausted(() => g.admit(grantWith({ calls: 1 }), T1, NOW), 'calls');
    await g.admit(grantWith({ calls: 1 }, T2), T2, NOW);
  });

  it('two connections to one state file cannot both take the last unit', async () => {
    const { s } = gate();
    const other = new Database(s.path);
    try {
      other.pragma('busy_timeout = 5000');
      migratePolicyTables(other);
      const a = new BudgetGate(s.stores.budgets);
      const b = new BudgetGate(sqlitePolicyStores(other).budgets);
      const grant = grantWith({ calls: 3 });
      const taken: BudgetReservation[] = [];
      let refused = 0;
      for (let i = 0; i < 6; i++) {
        try {
          taken.push(await (i % 2 ? a : b).admit(grant, T1, NOW));
        } catch (e) {
          if (!ToolgateError.isInstance(e) || e.code !== 'budget_exhausted') throw e;
          refused++;
        }
      }
      assert.equal(taken.length, 3);
      assert.equal(refused, 3);
    } finally {
      other.close();
    }
  });

  it('a reservation never settled (its runtime crashed) is abandoned after its deadline and stops holding the budget', async () => {
    const { gate: g } = gate();
    const grant = grantWith({ calls: 1 });
    await g.admit(grant, T1, NOW, { expires_at: NOW + 1000 });
    await exhausted(() => g.admit(grant, T1, NOW + 999), 'calls');
    const later = await g.admit(grant, T1, NOW + 1000);
    assert.deepEqual((await g.usage(T1)).calls, { used: 0, reserved: 1 });
    await g.settle(later, {});
    assert.deepEqual((await g.usage(T1)).calls, { used: 1, reserved: 0 });
  });

  it('a grant without a budget reserves and records nothing', async () => {
    const { gate: g } = gate();
    const r = await g.admit(grantWith(undefined), T1, NOW);
    assert.equal(r.id, null);
    await g.settle(r, { bytes_read: 10 });
    assert.deepEqual((await g.usage(T1)).calls, { used: 0, reserved: 0 });
  });

  it('usage survives a restart', async () => {
    const { s } = gate();
    const grant = grantWith({ calls: 2 });
    const g = new BudgetGate(s.stores.budgets);
    await g.settle(await g.admit(grant, T1, NOW), {});
    const held = await g.admit(grant, T1, NOW);
    const reopened = s.reopen();
    try {
      const g2 = new BudgetGate(reopened.stores.budgets);
      await exhausted(() => g2.admit(grant, T1, NOW), 'calls');
      await g2.release(held);
      await g2.release(await g2.admit(grant, T1, NOW));
    } finally {
      reopened.close();
    }
  });
});
