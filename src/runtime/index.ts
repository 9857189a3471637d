export { Runtime, createRuntime, type RuntimeOptions, type CallOptions, type RuntimeLoad } from './runtime.js';
export type { PolicyEngine, PolicyDecision, ApprovalDesk, TaskGrant, PolicySource } from '../policy/index.js';
export type { ReconcileReport, ReconcileEntry, UnsettledEntry } from './reconcile.js';
export { defaultStateDir } from './state-dir.js';
export { HmacTokenCodec, loadTokenKey } from './tokens.js';
export type { CallObserver, EndedCall, SettledBy } from './observe.js';
export { STAGES, type StageName, type StageTime } from './stage-clock.js';
export type { Settlement } from './reconcile.js';
