import type { TaskId } from '../../protocol/index.js';
import type { EffectIntent } from '../../registry/index.js';
import type { EffectStore } from '../../store/index.js';
import { redact } from '../../redact/index.js';

/**
 * The intent stage's second half: `markSent` as a tool sees it. The record moves to `sent` and
 * keeps the tool's intent (redacted: paths and digests, never content) durably before the
 * effect. A later markSent with a fuller intent (a step of the same effect) records it too.
 */
export function intentStage(store: Pick<EffectStore, 'markSent'>, task: TaskId, key: string | null, secrets: readonly string[]): { markSent(intent?: EffectIntent): Promise<void>; readonly sent: boolean } {
  let sent = false;
  return {
    async markSent(intent?: EffectIntent): Promise<void> {
      if (sent && intent === undefined) return;
      if (key !== null) {
        const recorded = intent === undefined ? null : (redact(intent, { fields: [], patterns: true, secrets }).value as EffectIntent);
        await store.markSent(task, key, recorded);
      }
      sent = true;
    },
    get sent(): boolean {
      return sent;
    },
  };
}
