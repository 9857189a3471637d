// A checkpoint: the ledger head after `pos` receipts, signed with the audit key. The signed text
// is a fixed line format (not JSON), so a client in any language can rebuild it exactly.
import { createPublicKey, sign, verify } from 'node:crypto';
import type { LedgerHead } from '../ledger.js';
import { keyIdOf, type AuditKey } from './audit-key.js';

export const CHECKPOINT_FORMAT = 'toolgate-checkpoint.v1';

export interface Checkpoint {
  readonly format: typeof CHECKPOINT_FORMAT;
  /** Receipts the ledger holds at this checkpoint (the ledger position of the last one). */
  readonly pos: number;
  /** The ledger head after them (hex sha256, src/store/ledger.ts). */
  readonly head: string;
  /** When it was signed (ISO 8601, the signer's clock). */
  readonly at: string;
  readonly key_id: string;
  /** The signer's public key (SPKI DER, base64), so a kept checkpoint can be checked on its own. */
  readonly public_key: string;
  /** Ed25519 over `signedText`, base64. */
  readonly signature: string;
}

export function signedText(c: Pick<Checkpoint, 'pos' | 'head' | 'at' | 'key_id'>): string {
  return `${CHECKPOINT_FORMAT}\npos ${c.pos}\nhead ${c.head}\nat ${c.at}\nkey ${c.key_id}\n`;
}

export function signCheckpoint(key: AuditKey, head: LedgerHead, at: Date = new Date()): Checkpoint {
  const body = { pos: head.pos, head: head.head, at: at.toISOString(), key_id: key.keyId };
  const signature = sign(null, Buffer.from(signedText(body)), key.privateKey).toString('base64');
  return { format: CHECKPOINT_FORMAT, ...body, public_key: key.publicKeyB64, signature };
}

/** Why a checkpoint cannot be trusted, or null when it is well formed and signed by `trusted` (a key id). */
export function checkpointFault(value: unknown, trusted: string): string | null {
  if (typeof value !== 'object' || value === null) return 'not a checkpoint object';
  const c = value as Record<string, unknown>;
  if (c['format'] !== CHECKPOINT_FORMAT) return `not a ${CHECKPOINT_FORMAT} checkpoint`;
  const pos = c['pos'];
  if (typeof pos !== 'number' || !Number.isSafeInteger(pos) || pos < 1) return 'pos is not a positive integer';
  for (const f of ['head', 'at', 'key_id', 'public_key', 'signature'] as const) if (typeof c[f] !== 'string') return `${f} is missing`;
  const cp = c as unknown as Checkpoint;
  if (!/^[0-9a-f]{64}$/.test(cp.head)) return 'head is not a sha256 in hex';
  let publicKey;
  try {
    publicKey = createPublicKey({ key: Buffer.from(cp.public_key, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return 'public_key is not a public key';
  }
  if (publicKey.asymmetricKeyType !== 'ed25519') return 'public_key is not an Ed25519 key';
  if (keyIdOf(publicKey).keyId !== cp.key_id) return 'key_id does not name public_key';
  if (cp.key_id !== trusted) return `signed by key ${cp.key_id}, not by this runtime's audit key ${trusted}`;
  if (!verify(null, Buffer.from(signedText(cp)), publicKey, Buffer.from(cp.signature, 'base64'))) return 'the signature does not match (the checkpoint was altered)';
  return null;
}
