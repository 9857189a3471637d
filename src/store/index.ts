export type {
  EffectState,
  EffectRecord,
  UnsettledEffect,
  TakeOver,
  ClaimRequest,
  ClaimResult,
  EffectStore,
  CommitRequest,
  ReceiptStore,
  ChainReport,
  TaskRecord,
  TaskStore,
  Store,
} from './types.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite/store.js';
export { migrate, CORE_MIGRATIONS, type MigrationSet } from './sqlite/migrations.js';
export { migratePolicyTables, sqlitePolicyStores, POLICY_MIGRATIONS } from './sqlite/policy-tables.js';
export { isStorageFailure, storeFailure, guarded } from './sqlite/unavailable.js';
