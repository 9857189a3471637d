import type { EffectIntent } from '../../registry/index.js';
import type { EffectStore } from '../../store/index.js';
import { redact } from '../../redact/index.js';
import type { Call } from '../call.js';
import { failpoint } from '../../protocol/index.js';

/**
 * The intent stage's second half: `markSent` as a tool sees it. The record the call holds
 * moves to `sent` and keeps the tool's intent (redacted: paths and digests, never content)
 * durably before the effect. A later markSent with a fuller intent (a step of the same
 * effect) records it too.
 */
export function intentStage(store: Pick<EffectStore, 'markSent'>, call: Call): (intent?: EffectIntent) => Promise<void> {
  return async (intent) => {
    if (call.sent && intent === undefined) return;
    const key = call.effectKey;
    if (key !== null) {
      const recorded = intent === undefined ? null : (redact(intent, { fields: [], patterns: true, secrets: call.secrets }).value as EffectIntent);
      await store.markSent(call.draft.task_id, key, recorded);
      failpoint('after_intent');
    }
    call.markedSent();
    failpoint('after_sent');
  };
}
