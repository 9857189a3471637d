import type { Receipt } from '../../protocol/index.js';
import type { ArtifactStore } from '../../artifacts/index.js';
import { storeFailure, type ReceiptStore } from '../../store/index.js';
import type { Call } from '../call.js';
import { redactStage } from './redact.js';
import { storedForm, type ReceiptRetention } from './bind.js';
import { failpoint } from '../../protocol/index.js';

export interface CommitServices {
  readonly store: Pick<ReceiptStore, 'commit'>;
  readonly artifacts: Pick<ArtifactStore, 'put' | 'durable'>;
  /** Results larger than this (JSON bytes) are stored as an artifact. */
  readonly inlineResultBytes: number;
  /** What the store keeps of bound result members (bind.ts). */
  readonly retention: ReceiptRetention;
  /** Named in a store failure. */
  readonly stateDir: string;
  /** No other call of this runtime is in its pipeline (the store may then commit on this thread: CommitOptions). */
  readonly alone?: () => boolean;
}

/**
 * redact → (spill large results to artifacts) → commit. The receipt is durable before it is
 * returned; the effect record the call holds takes its final state in the same transaction. A
 * store that cannot commit rejects with `store_unavailable`; the effect record is then left as
 * it was (claimed or sent), for a retry or `toolgate reconcile` to settle.
 */
export async function commitStage(s: CommitServices, call: Call): Promise<Receipt> {
  const { draft, executed } = call;
  call.clock.enter('redact');
  const red = redactStage(call.tool, draft, call.secrets, executed?.redaction_windows ?? []);
  Object.assign(draft, red.body);
  draft.redactions = red.notes;
  call.clock.enter('commit');
  try {
    if (draft.result !== null && mayExceed(draft.result, s.inlineResultBytes)) {
      const text = JSON.stringify(draft.result);
      if (Buffer.byteLength(text) > s.inlineResultBytes) {
        const ref = s.artifacts.put(text, 'application/json', 'result');
        draft.artifacts = [...draft.artifacts, ref];
        draft.result = { artifact: ref.digest, bytes: ref.bytes, inline: false };
      }
    }
    draft.finished_at = new Date().toISOString();
    const key = call.effectKey;
    const effect = key === null ? undefined : { key, state: executed?.effect ?? 'released' };
    const body = storedForm(draft, call.tool?.bound, s.retention);
    const req = { body, ...(effect ? { effect } : {}) };
    // Every artifact the receipt names is durable under its name first (the folder syncs began
    // when each was sealed; a call that made none waits only for syncs other calls began).
    await s.artifacts.durable();
    failpoint('before_receipt');
    // Whether commits share a transaction (group commit) is the store's business.
    const receipt = await s.store.commit(req, { alone: s.alone?.() === true });
    // The caller gets the result itself; the digest is the stored form's (members bound by digest).
    return body === draft ? receipt : { ...receipt, result: draft.result };
  } catch (e) {
    throw storeFailure(e, 'commit the receipt', s.stateDir);
  }
}

/** Cheap bound before serializing: JSON escaping at most sextuples a string (\u00XX). */
function mayExceed(value: unknown, limit: number): boolean {
  let budget = limit / 6;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return (budget -= v.length + 2) < 0;
    if (Array.isArray(v)) return v.some(walk);
    if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => (budget -= k.length + 3) < 0 || walk(x));
    return (budget -= 24) < 0;
  };
  return walk(value);
}
