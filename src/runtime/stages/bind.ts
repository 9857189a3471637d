import { sha256Hex, type BoundValue, type Digest } from '../../protocol/index.js';
import type { Draft } from '../call.js';

/**
 * What the store keeps of a receipt's result. `inline`: everything. `digest` (the default):
 * the members a tool declares `bound` (workspace content its result names by path, sha256 and
 * revision, such as fs.read's page) are kept as their digest, not copied into the database
 * (docs/protocol.md#retention). A 4 KiB fs.read stored a 4.7 KB receipt; bound, about 1.4 KB.
 */
export type ReceiptRetention = 'digest' | 'inline';

/**
 * The draft as the store keeps it: `body` (bound members removed and listed in `bound`), or the
 * draft itself when nothing is bound. A receipt that may be handed back again (a keyed call's,
 * replayed for a repeated idempotency key) and one that did not succeed keep everything.
 */
export function storedForm(draft: Draft, members: readonly string[] | undefined, retention: ReceiptRetention): Draft {
  if (retention === 'inline' || members === undefined || members.length === 0) return draft;
  if (draft.status !== 'succeeded' || draft.idempotency_key !== null) return draft;
  const result = draft.result;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return draft;
  let kept: Record<string, unknown> | undefined;
  const bound: BoundValue[] = [];
  for (const pointer of members) {
    const name = pointer.slice(1);
    const value = (result as Record<string, unknown>)[name];
    if (typeof value !== 'string') continue;
    kept ??= { ...(result as Record<string, unknown>) };
    delete kept[name];
    bound.push({ pointer: `/result${pointer}`, sha256: `sha256:${sha256Hex(value)}` as Digest, bytes: Buffer.byteLength(value) });
  }
  return kept === undefined ? draft : { ...draft, result: kept, bound };
}
