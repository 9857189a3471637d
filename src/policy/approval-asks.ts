// Questions put to a person about a pending approval, through a client that is not Toolgate
// (an MCP client's elicitation). The answer comes back with a `requestState` the client holds
// between rounds, so it is attacker-controlled input: it is signed (HMAC-SHA256 under a key the
// store shares between hosts), names the task (the principal: one MCP session is one task), the
// approval, the normalized action digest shown and the request it was asked for, expires soon,
// and is used once (the store's ask row, used by one atomic statement). Hand-written over the
// SDK's createRequestStateCodec because that codec keeps no record, so it cannot refuse a replay,
// and its failures are untyped.
import { randomUUID } from 'node:crypto';
import { canonicalJson, constantTimeEqual, hmacSha256, ToolgateError, type Digest, type TaskId } from '../protocol/index.js';
import type { ApprovalDesk } from './approvals.js';
import type { ApprovalAsk, ApprovalRecord, ApprovalStore } from './stores.js';

const PREFIX = 'tgask1';

/** Why a presented requestState is refused (the `reason` of its `invalid_continuation`). */
export type AskRefusal =
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'replayed'
  | 'unknown'
  | 'other_task'
  | 'other_request'
  | 'other_action';

interface AskPayload {
  readonly ask: string;
  readonly approval_id: string;
  readonly task_id: string;
  readonly action_digest: string;
  /** What the question was asked for (the MCP request's tool and arguments): a retry must match. */
  readonly request: string;
  readonly exp: number;
}

export interface ApprovalQuestionsOptions {
  /** How long a question may be answered. Default 5 minutes. */
  readonly ttlMs?: number;
}

function refuse(reason: AskRefusal, message: string): ToolgateError {
  return new ToolgateError('invalid_continuation', `approval answer refused: ${message}`, { reason: `request_state_${reason}` });
}

export class ApprovalQuestions {
  readonly #desk: ApprovalDesk;
  readonly #store: Pick<ApprovalStore, 'recordAsk' | 'useAsk'>;
  readonly #key: Buffer;
  readonly ttlMs: number;

  constructor(desk: ApprovalDesk, store: Pick<ApprovalStore, 'recordAsk' | 'useAsk'>, key: Buffer, opts: ApprovalQuestionsOptions = {}) {
    if (key.length < 32) throw new RangeError('the approval question key must be at least 32 bytes');
    this.#desk = desk;
    this.#store = store;
    this.#key = key;
    this.ttlMs = opts.ttlMs ?? 5 * 60_000;
  }

  /** Records a question about this pending approval and returns its signed requestState. */
  async ask(approval: ApprovalRecord, request: string, now: number): Promise<{ readonly state: string; readonly ask: ApprovalAsk }> {
    // Never past the approval's own expiry: an answer to a lapsed request could not be used anyway.
    const expires_at = Math.min(now + this.ttlMs, approval.expires_at);
    const ask: ApprovalAsk = { id: `ask_${randomUUID()}`, approval_id: approval.id, task_id: approval.task_id, action_digest: approval.action_digest, created_at: now, expires_at };
    await this.#store.recordAsk(ask);
    const payload: AskPayload = { ask: ask.id, approval_id: ask.approval_id, task_id: ask.task_id, action_digest: ask.action_digest, request, exp: expires_at };
    const body = Buffer.from(canonicalJson(payload)).toString('base64url');
    return { state: `${PREFIX}.${body}.${this.#mac(body)}`, ask };
  }

  /**
   * Checks a presented requestState against the call it came with and uses it (once). Every
   * check runs before the store is touched except the last, so a forged or misdirected state
   * cannot use up a genuine one. Throws `invalid_continuation` with the reason.
   */
  async redeem(state: string, expect: { readonly task_id: TaskId | string; readonly request: string }, now: number): Promise<ApprovalAsk> {
    const parts = state.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) throw refuse('malformed', 'not a Toolgate approval state');
    const [, body, mac] = parts as [string, string, string];
    if (!constantTimeEqual(Buffer.from(mac, 'base64url'), Buffer.from(this.#mac(body), 'base64url'))) throw refuse('signature', 'its signature does not match');
    let p: AskPayload;
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as AskPayload;
    } catch {
      throw refuse('malformed', 'its body is not JSON');
    }
    if (typeof p.exp !== 'number' || now >= p.exp) throw refuse('expired', 'the question has expired');
    if (p.task_id !== expect.task_id) throw refuse('other_task', 'it was asked in another task');
    if (p.request !== expect.request) throw refuse('other_request', 'it was asked for another call (tool or arguments differ)');
    const used = await this.#store.useAsk(p.ask, now);
    if (!used.ok) throw used.reason === 'used' ? refuse('replayed', 'it was already used') : refuse(used.reason, used.reason === 'expired' ? 'the question has expired' : 'no such question');
    // The row is the authority: the signed copy must say the same.
    if (used.ask.approval_id !== p.approval_id || used.ask.action_digest !== p.action_digest || used.ask.task_id !== p.task_id) {
      throw refuse('other_action', 'it does not match the question recorded');
    }
    return used.ask;
  }

  /**
   * Applies a person's answer to the approval the ask names, bound to the action digest that
   * was shown. An approval decided meanwhile (elsewhere, or lapsed) is left as it is: the call
   * that follows reports what is in force.
   */
  async answer(ask: ApprovalAsk, answer: 'approve' | 'deny', by: string, now: number): Promise<ApprovalRecord | null> {
    try {
      return answer === 'approve'
        ? await this.#desk.approve(ask.approval_id, by, now, ask.action_digest as Digest)
        : await this.#desk.deny(ask.approval_id, by, now, ask.action_digest as Digest);
    } catch (e) {
      if (ToolgateError.isInstance(e) && e.code === 'precondition_failed') return null;
      throw e;
    }
  }

  #mac(body: string): string {
    return hmacSha256(this.#key, `${PREFIX}:${body}`).toString('base64url');
  }
}
