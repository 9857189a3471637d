export type {
  EffectState,
  EffectRecord,
  UnsettledEffect,
  TakeOver,
  ClaimRequest,
  ClaimResult,
  EffectStore,
  CommitOptions,
  CommitRequest,
  ReceiptStore,
  ChainReport,
  TaskRecord,
  RuntimeNote,
  TaskStore,
  SubtaskRow,
  SubtaskStore,
  WaitEdge,
  Store,
  StoreContext,
  StoreFactory,
} from './types.js';
export { EffectOwner, ABANDON_GRACE_MS, pidAlive, hostIdentity, type Holding } from './liveness.js';
export { sqliteStore, probeSqlite, checkDatabase, type DatabaseHealth } from './sqlite/factory.js';
export type { SqliteOptions } from './sqlite/store.js';
export type { MigrationSet } from './sqlite/migrations.js';
export { isStorageFailure, storeFailure, guarded } from './sqlite/unavailable.js';
export { postgresStore, probePostgres, type PostgresHealth } from './postgres/factory.js';
export type { PostgresOptions } from './postgres/store.js';
export { ledgerStep, type LedgerHead, type LedgerReport, type LedgerStore } from './ledger.js';
export {
  AuditCheckpoints,
  openAuditCheckpoints,
  checkpointFileOf,
  DEFAULT_CHECKPOINT_EVERY,
  loadAuditKey,
  defaultAuditKeyPath,
  signCheckpoint,
  checkpointFault,
  readCheckpointFile,
  verifyLedger,
  type AuditOptions,
  type CheckpointStatus,
  type AuditKey,
  type Checkpoint,
  type LedgerVerdict,
  type CheckpointVerdict,
} from './audit/index.js';
