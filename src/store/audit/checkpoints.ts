import { join } from 'node:path';
import type { LedgerHead, LedgerStore } from '../ledger.js';
import { defaultAuditKeyPath, loadAuditKey, type AuditKey } from './audit-key.js';
import { checkpointFault, signCheckpoint, type Checkpoint } from './checkpoint.js';
import { readCheckpointFile, readCheckpointText, writeCheckpointFile } from './checkpoint-file.js';

export interface AuditOptions {
  /** The Ed25519 key (created 0600 on first use). Default `defaultAuditKeyPath()`. */
  readonly keyFile?: string;
  /** Where the latest checkpoint is kept. Default `<state dir>/audit-checkpoint.json`. */
  readonly checkpointFile?: string;
  /** Receipts between two checkpoints written (and fsync'ed) to the file; also on close. Default 64. */
  readonly every?: number;
}

export const DEFAULT_CHECKPOINT_EVERY = 64;

/**
 * The checkpoints a runtime opens with, or why it has none. A key the operator named
 * (`keyFile`, `TOOLGATE_AUDIT_KEY`) must work: its failure stops the runtime. The default
 * location may be unusable where nobody chose it (a home this user cannot write, a workspace that
 * contains `~/.config`): the runtime then runs without checkpoints and says why (`unavailable`,
 * printed by the CLI at start and by `audit verify`), rather than refusing to serve at all.
 */
export function openAuditCheckpoints(
  opts: AuditOptions,
  where: { readonly stateDir: string; readonly workspace: string },
  env: NodeJS.ProcessEnv = process.env,
): { readonly checkpoints: AuditCheckpoints } | { readonly unavailable: string } {
  const named = opts.keyFile !== undefined || (env['TOOLGATE_AUDIT_KEY'] ?? '').startsWith('/');
  try {
    return { checkpoints: new AuditCheckpoints(opts, where) };
  } catch (e) {
    if (named) throw e;
    return { unavailable: `${(e as Error).message}; set TOOLGATE_AUDIT_KEY to a path outside the workspace and the state dir (docs/audit.md)` };
  }
}

export function checkpointFileOf(opts: AuditOptions, stateDir: string): string {
  return opts.checkpointFile ?? join(stateDir, 'audit-checkpoint.json');
}

/**
 * What a client is handed in each result (`_meta["toolgate/checkpoint"]`): the latest checkpoint,
 * or why the runtime no longer signs (the database does not hold what the kept checkpoint covers:
 * signing on would vouch for the loss).
 */
export type CheckpointStatus = { readonly checkpoint: Checkpoint | null } | { readonly diverged: string };

/**
 * Signs checkpoints of the store's ledger for one runtime: told each durable ledger head by the
 * store (StoreContext.onLedger), it writes a checkpoint to the file every `every` receipts and at
 * close, and signs the latest head on demand for each result (one ~50 µs signature per new head).
 */
export class AuditCheckpoints {
  readonly key: AuditKey;
  readonly file: string;
  readonly every: number;
  #latest: LedgerHead | null = null;
  #signed: Checkpoint | null = null;
  #written = 0;
  #writing: Promise<void> = Promise.resolve();
  /** The text this runtime last wrote to the file: found there unchanged, it needs no check. */
  #wroteText: string | null = null;
  #diverged: string | null = null;
  /** The last failure to write the file (the next write tries again); null when the last one succeeded. */
  writeError: Error | null = null;

  constructor(opts: AuditOptions, where: { readonly stateDir: string; readonly workspace: string }) {
    this.key = loadAuditKey(opts.keyFile ?? defaultAuditKeyPath(), [where.workspace, where.stateDir]);
    this.file = checkpointFileOf(opts, where.stateDir);
    this.every = Math.max(1, Math.floor(opts.every ?? DEFAULT_CHECKPOINT_EVERY));
  }

  /**
   * Compares the kept checkpoint with the store before anything is committed: when the database
   * lacks or differs from what it covers (a lost tail, an older copy, a rewrite), the runtime
   * stops signing, so that no new checkpoint hides the loss; `audit verify` reports it.
   */
  async attach(ledger: LedgerStore | undefined): Promise<void> {
    if (ledger === undefined) {
      this.#diverged = 'the store keeps no ledger';
      return;
    }
    let kept: unknown;
    try {
      kept = await readCheckpointFile(this.file);
    } catch (e) {
      this.#diverged = `the checkpoint file ${this.file} cannot be read: ${(e as Error).message}`;
      return;
    }
    if (kept === null) return;
    const fault = checkpointFault(kept, this.key.keyId);
    if (fault !== null) {
      this.#diverged = `the checkpoint file ${this.file} cannot be trusted: ${fault}`;
      return;
    }
    const cp = kept as Checkpoint;
    const stored = await ledger.ledgerAt(cp.pos);
    if (stored !== cp.head) {
      this.#diverged = stored === null
        ? `the database lacks receipt ${cp.pos} of the ledger, which the checkpoint of ${cp.at} covers (receipts lost or an older database)`
        : `the ledger at receipt ${cp.pos} differs from the checkpoint of ${cp.at} (receipts rewritten)`;
      return;
    }
    this.#latest = { pos: cp.pos, head: cp.head };
    this.#signed = cp;
    this.#written = cp.pos;
  }

  /** A durable ledger head (from this store's commits); positions only move forward. */
  advanced(head: LedgerHead): void {
    if (this.#diverged !== null || (this.#latest !== null && head.pos <= this.#latest.pos)) return;
    this.#latest = head;
    if (head.pos - this.#written >= this.every) this.#flush();
  }

  /** The latest checkpoint, signed now if the head moved since the last signature. */
  status(): CheckpointStatus {
    if (this.#diverged !== null) return { diverged: this.#diverged };
    return { checkpoint: this.#current() };
  }

  #current(): Checkpoint | null {
    const latest = this.#latest;
    if (latest === null) return null;
    if (this.#signed === null || this.#signed.pos !== latest.pos) this.#signed = signCheckpoint(this.key, latest);
    return this.#signed;
  }

  #flush(): void {
    const cp = this.#current();
    if (cp === null || cp.pos <= this.#written) return;
    this.#written = cp.pos;
    // One write at a time, in order; a failure is kept (writeError) and the next write retries.
    this.#writing = this.#writing.then(async () => {
      try {
        // Another runtime on this state dir may have written a later checkpoint: never go back.
        // The file as this runtime last wrote it is older than `cp` and needs no parse or
        // signature check (about 0.4 ms each flush, most of it the public key's import).
        const text = await readCheckpointText(this.file).catch(() => null);
        if (text !== null && text !== this.#wroteText) {
          let kept: unknown = null;
          try {
            kept = JSON.parse(text) as unknown;
          } catch {
            // Not a checkpoint: replaced by ours.
          }
          if (kept !== null && checkpointFault(kept, this.key.keyId) === null && (kept as Checkpoint).pos >= cp.pos) return;
        }
        this.#wroteText = await writeCheckpointFile(this.file, cp);
        this.writeError = null;
      } catch (e) {
        this.writeError = e as Error;
        this.#written = Math.min(this.#written, cp.pos - 1);
      }
    });
  }

  /** Writes the latest checkpoint and waits for the file (the runtime closes the store first). */
  async close(): Promise<void> {
    if (this.#diverged === null) this.#flush();
    await this.#writing;
  }
}
