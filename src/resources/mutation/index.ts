// The mutation kit: what every tool that changes workspace files shares, so that each change can
// be undone from its receipt and settled after a crash. Change records and preimages (record),
// the all-or-nothing commit of a file set (file-set), its reconcile (file-set-reconcile), what
// is at a path now (entry-at), line-ending detection (newlines), and what the kit needs from the
// call it runs in (context).
export {
  fileImage,
  changeRecord,
  mutationEvidence,
  storePreimage,
  PreimageBundle,
  postImage,
  putPaced,
  sha256Paced,
  type FileImage,
  type ChangeRecord,
  type MutationEvidence,
} from './record.js';
export { commitFileSet, removeCreatedDirs, type PlannedWrite, type CommitResult } from './file-set.js';
export { reconcileFileSet, type FileSetOptions } from './file-set-reconcile.js';
export { openForUndo, identityAt, removeEmptyDirs } from './entry-at.js';
export { usesCrlf } from './newlines.js';
export type {
  MutationContext,
  MutationReconcileContext,
  MutationIntent,
  MutationRevision,
  MutationVerdict,
  PreimageStore,
  FailedCommitOutcome,
} from './context.js';
