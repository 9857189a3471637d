import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bindGrant, BudgetGate, CompiledGrant, type BudgetReservation, type TaskGrant } from '../../src/policy/index.js';
import { ToolgateError } from '../../src/protocol/index.js';
import { migratePolicyTables, sqlitePolicyStores } from '../../src/store/sqlite/policy-tables.js';
import Database from 'better-sqlite3';
import { NOW, stateFile, T1, T2 } from './fixtures.js';

const subject = (task = T1) => ({ tenant: 'acme', principal: 'agent', task_id: task, attempt_id: null, cancellation_epoch: 0 });
const grantWith = (budget: TaskGrant['budget'], task = T1): CompiledGrant => new CompiledGrant(bindGrant({ tools: ['*'], budget }, subject(task)));

function exhausted(fn: () => unknown, dimension: string): void {
  assert.throws(fn, (e: unknown) => ToolgateError.isInstance(e) && e.code === 'budget_exhausted' && e.data['dimension'] === dimension);
}

describe('budgets: reserve at admission, settle at commit', () => {
  const states: { dispose(): void }[] = [];
  after(() => states.forEach((s) => s.dispose()));
  const gate = () => {
    const s = stateFile();
    states.push(s);
    return { s, gate: new BudgetGate(s.stores.budgets) };
  };

  it('calls: the call past the limit is budget_exhausted, and a refused admission reserves nothing', () => {
    const { gate: g } = gate();
    const grant = grantWith({ calls: 2 });
    g.settle(g.admit(grant, T1, NOW), {});
    const held = g.admit(grant, T1, NOW);
    exhausted(() => g.admit(grant, T1, NOW), 'calls');
    assert.deepEqual(g.usage(T1).calls, { used: 1, reserved: 1 });
    g.settle(held, {});
    assert.deepEqual(g.usage(T1).calls, { used: 2, reserved: 0 });
    exhausted(() => g.admit(grant, T1, NOW), 'calls');
    assert.deepEqual(g.usage(T1).calls, { used: 2, reserved: 0 });
  });

  it('settles with actual usage, not the estimate; a released reservation charges nothing', () => {
    const { gate: g } = gate();
    const grant = grantWith({ bytes_read: 1000, calls: 10 });
    const r = g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_read: 600 } });
    exhausted(() => g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_read: 600 } }), 'bytes_read');
    g.settle(r, { bytes_read: 100 });
    assert.deepEqual(g.usage(T1).bytes_read, { used: 100, reserved: 0 });
    const r2 = g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_read: 600 } });
    g.release(r2);
    assert.deepEqual(g.usage(T1).bytes_read, { used: 100, reserved: 0 });
    assert.deepEqual(g.usage(T1).calls, { used: 1, reserved: 0 });
  });

  it('settling twice charges once', () => {
    const { gate: g } = gate();
    const r = g.admit(grantWith({ cost: 10 }), T1, NOW, { estimate: { calls: 1, cost: 3 } });
    g.settle(r, { cost: 4 });
    g.settle(r, { cost: 4 });
    g.release(r);
    assert.deepEqual(g.usage(T1).cost, { used: 4, reserved: 0 });
  });

  it('an overrun at commit is recorded and refuses the next call that needs the dimension', () => {
    const { gate: g } = gate();
    const grant = grantWith({ bytes_written: 100, wall_ms: 1000, cpu_ms: 50 });
    g.settle(g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_written: 0, wall_ms: 0, cpu_ms: 0 } }), { bytes_written: 150, wall_ms: 10, cpu_ms: 50 });
    exhausted(() => g.admit(grant, T1, NOW, { estimate: { calls: 1, bytes_written: 0 } }), 'bytes_written');
    exhausted(() => g.admit(grant, T1, NOW, { estimate: { calls: 1, cpu_ms: 0 } }), 'cpu_ms');
    // a call that does not name the dimension (a read) is not refused by it
    g.release(g.admit(grant, T1, NOW, { estimate: { calls: 1, wall_ms: 0 } }));
  });

  it('calls_per_minute counts admissions in a sliding minute', () => {
    const { gate: g } = gate();
    const grant = grantWith({ calls_per_minute: 2 });
    g.admit(grant, T1, NOW);
    g.admit(grant, T1, NOW + 10_000);
    exhausted(() => g.admit(grant, T1, NOW + 59_999), 'calls_per_minute');
    g.admit(grant, T1, NOW + 60_001);
  });

  it('budgets are per task', () => {
    const { gate: g } = gate();
    g.admit(grantWith({ calls: 1 }), T1, NOW);
    exhausted(() => g.admit(grantWith({ calls: 1 }), T1, NOW), 'calls');
    g.admit(grantWith({ calls: 1 }, T2), T2, NOW);
  });

  it('two connections to one state file cannot both take the last unit', () => {
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
          taken.push((i % 2 ? a : b).admit(grant, T1, NOW));
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

  it('a reservation never settled (its runtime crashed) is abandoned after its deadline and stops holding the budget', () => {
    const { gate: g } = gate();
    const grant = grantWith({ calls: 1 });
    g.admit(grant, T1, NOW, { expires_at: NOW + 1000 });
    exhausted(() => g.admit(grant, T1, NOW + 999), 'calls');
    const later = g.admit(grant, T1, NOW + 1000);
    assert.deepEqual(g.usage(T1).calls, { used: 0, reserved: 1 });
    g.settle(later, {});
    assert.deepEqual(g.usage(T1).calls, { used: 1, reserved: 0 });
  });

  it('a grant without a budget reserves and records nothing', () => {
    const { gate: g } = gate();
    const r = g.admit(grantWith(undefined), T1, NOW);
    assert.equal(r.id, null);
    g.settle(r, { bytes_read: 10 });
    assert.deepEqual(g.usage(T1).calls, { used: 0, reserved: 0 });
  });

  it('usage survives a restart', () => {
    const { s } = gate();
    const grant = grantWith({ calls: 2 });
    const g = new BudgetGate(s.stores.budgets);
    g.settle(g.admit(grant, T1, NOW), {});
    const held = g.admit(grant, T1, NOW);
    const reopened = s.reopen();
    try {
      const g2 = new BudgetGate(reopened.stores.budgets);
      exhausted(() => g2.admit(grant, T1, NOW), 'calls');
      g2.release(held);
      g2.release(g2.admit(grant, T1, NOW));
    } finally {
      reopened.close();
    }
  });
});
