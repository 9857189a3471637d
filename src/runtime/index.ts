export { Runtime, createRuntime, type RuntimeOptions, type CallOptions } from './runtime.js';
export type { PolicyEngine, PolicyDecision, ApprovalDesk, TaskGrant, PolicySource } from '../policy/index.js';
export type { ReconcileReport, ReconcileEntry, UnsettledEntry } from './reconcile.js';
export { defaultStateDir } from './state-dir.js';
export { HmacTokenCodec, loadTokenKey } from './tokens.js';
