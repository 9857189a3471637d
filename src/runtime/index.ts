export { Runtime, createRuntime, type RuntimeOptions, type CallOptions } from './runtime.js';
export type { Authorizer } from './stages/authorize.js';
export type { ReconcileReport, ReconcileEntry } from './reconcile.js';
export { defaultStateDir } from './state-dir.js';
export { HmacTokenCodec, loadTokenKey } from './tokens.js';
