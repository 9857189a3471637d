export { AuditCheckpoints, openAuditCheckpoints, checkpointFileOf, DEFAULT_CHECKPOINT_EVERY, type AuditOptions, type CheckpointStatus } from './checkpoints.js';
export { loadAuditKey, defaultAuditKeyPath, type AuditKey } from './audit-key.js';
export { signCheckpoint, checkpointFault, signedText, CHECKPOINT_FORMAT, type Checkpoint } from './checkpoint.js';
export { readCheckpointFile } from './checkpoint-file.js';
export { verifyLedger, type LedgerVerdict, type CheckpointVerdict } from './verify.js';
