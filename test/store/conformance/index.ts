// The store conformance suite: one contract for every backend (SQLite now, PostgreSQL next).
// A backend's test file calls describeStoreConformance with its ConformanceBackend; nothing in
// the assertions knows which storage runs underneath.
import { describe } from 'node:test';
import type { ConformanceBackend } from './backend.js';
import { concurrencyCases } from './concurrency.js';
import { effectCases } from './effects.js';
import { keyCases } from './keys.js';
import { policyCases } from './policy.js';
import { receiptCases } from './receipts.js';
import { taskCases } from './tasks.js';
import { subtaskCases } from './subtasks.js';

export type { ConformanceBackend } from './backend.js';

export function describeStoreConformance(name: string, backend: ConformanceBackend): void {
  describe(`store conformance: ${name}`, () => {
    effectCases(backend);
    receiptCases(backend);
    taskCases(backend);
    policyCases(backend);
    concurrencyCases(backend);
    keyCases(backend);
    subtaskCases(backend);
  });
}
