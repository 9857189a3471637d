import { sha256Hex } from '../../protocol/index.js';

/**
 * The Idempotency-Key a provider sees: derived from the task and the logical effect, so every
 * retry of one effect (after a crash too) sends the same key, and two effects never share one.
 * An unkeyed call cannot be retried as the same effect: its attempt names it.
 */
export function idempotencyKeyOf(task: string, idempotencyKey: string | null, logicalEffectId: string | null, attempt: string): string {
  const effect = idempotencyKey !== null ? `k:${idempotencyKey}` : logicalEffectId !== null ? `e:${logicalEffectId}` : `a:${attempt}`;
  return `tg-${sha256Hex(`toolgate/http.request/v1\0${task}\0${effect}`).slice(0, 40)}`;
}

/** The declared reconcile query with its placeholders filled (each value URL-encoded where it is a component). */
export function reconcileUrlOf(template: string, url: string, key: string): string {
  const u = new URL(url);
  return template.replaceAll('{url}', url).replaceAll('{origin}', u.origin).replaceAll('{idempotency_key}', encodeURIComponent(key));
}
