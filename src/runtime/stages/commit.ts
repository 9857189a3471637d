import type { Receipt, ReceiptBody } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';
import { storeFailure } from '../../store/index.js';
import type { RuntimeParts } from '../runtime.js';
import type { Executed } from './execute.js';
import { redactStage } from './redact.js';

export type Draft = { -readonly [K in keyof Omit<ReceiptBody, 'prev_receipt_digest'>]: Omit<ReceiptBody, 'prev_receipt_digest'>[K] };

/**
 * redact → (spill large results to artifacts) → commit. The receipt is durable before it is
 * returned. A store that cannot commit rejects with `store_unavailable`; the effect record is
 * then left as it was (claimed or sent), for a retry or `toolgate reconcile` to settle.
 */
export function commitStage(parts: RuntimeParts, draft: Draft, tool: AnyTool | null, secrets: readonly string[], heldKey: string | null, executed: Executed | null): Promise<Receipt> {
  const red = redactStage(tool, draft, secrets, executed?.redaction_windows ?? []);
  Object.assign(draft, red.body);
  draft.redactions = red.notes;
  try {
    if (draft.result !== null && mayExceed(draft.result, parts.inlineResultBytes)) {
      const text = JSON.stringify(draft.result);
      if (Buffer.byteLength(text) > parts.inlineResultBytes) {
        const ref = parts.artifacts.put(text, 'application/json', 'result');
        draft.artifacts = [...draft.artifacts, ref];
        draft.result = { artifact: ref.digest, bytes: ref.bytes, inline: false };
      }
    }
    draft.finished_at = new Date().toISOString();
    const effect = heldKey === null ? undefined : { key: heldKey, state: executed?.effect ?? 'released' };
    // Whether commits share a transaction (group commit) is the store's business.
    return parts.store.commit({ body: draft, ...(effect ? { effect } : {}) });
  } catch (e) {
    return Promise.reject(storeFailure(e, 'commit the receipt', parts.stateDir));
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
