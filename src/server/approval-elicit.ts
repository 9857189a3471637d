// Approvals asked through the MCP client (docs/approvals.md). A call refused with
// approval_required is put to the person as a form: on 2025-era connections as an
// `elicitation/create` request while the call waits; on 2026-07-28 as an `input_required` result
// whose `requestState` the client echoes on its retry. Both answers go through the same checks
// (ApprovalQuestions.redeem: signature, expiry, task, request, used once in the store) before the
// approval is decided. A client that cannot elicit a form, a cancel, a timeout or a refused
// state leave the approval pending: the call answers approval_required with the approval id, for
// `toolgate approve ID` and a retry.
import { inputRequired, inputResponse, ProtocolError, ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { digestOf, ToolgateError, type Receipt } from '../protocol/index.js';
import { ApprovalQuestions } from '../policy/index.js';
import type { Runtime } from '../runtime/index.js';
import { answerOf, approvalElicitation, APPROVAL_INPUT_KEY } from './approval-question.js';

export interface ApprovalAskingOptions {
  /** How long a question may be answered (its requestState lives). Default 5 minutes. */
  readonly approvalQuestionTtlMs?: number;
  /** How long a 2025-era call waits for the person's answer. Default: the question's lifetime. */
  readonly approvalWaitMs?: number;
  /**
   * Ask through the client at all. An answer is the client's word that a person gave it; for a
   * client set to accept elicitations by itself, set false: every approval is then out of band.
   * Default true.
   */
  readonly askInClient?: boolean;
}

/** One server's approval questions: the signing key is read from the store once, on first use. */
export class ApprovalAsking {
  readonly #rt: Runtime;
  readonly ttlMs: number;
  readonly waitMs: number;
  readonly enabled: boolean;
  #questions: Promise<ApprovalQuestions | null> | undefined;

  constructor(rt: Runtime, opts: ApprovalAskingOptions = {}) {
    this.#rt = rt;
    this.ttlMs = opts.approvalQuestionTtlMs ?? 5 * 60_000;
    this.waitMs = opts.approvalWaitMs ?? this.ttlMs;
    this.enabled = opts.askInClient ?? true;
  }

  /** `null` when the store cannot share a key: then nothing is asked in-band (deny by default). */
  questions(): Promise<ApprovalQuestions | null> {
    const store = this.#rt.store;
    if (!this.enabled) return Promise.resolve(null);
    return (this.#questions ??= store.sharedKey
      ? store.sharedKey('approval-question').then((key) => new ApprovalQuestions(this.#rt.approvals, store.approvals, key, { ttlMs: this.ttlMs }))
      : Promise.resolve(null));
  }
}

type ClientCaps = { readonly elicitation?: { readonly form?: unknown; readonly url?: unknown } } | undefined;

/** Whether the client said it can show a form: `elicitation: {}` (form by default) or with `form`. */
function elicitsForms(caps: ClientCaps): boolean {
  const e = caps?.elicitation;
  if (typeof e !== 'object' || e === null) return false;
  return e.form !== undefined || e.url === undefined;
}

function modernCaps(ctx: ServerContext): ClientCaps | undefined {
  const env = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  return env?.['io.modelcontextprotocol/clientCapabilities'] as ClientCaps;
}

/** A refused requestState as the JSON-RPC error the spec asks for, with Toolgate's typed code. */
function refusal(e: ToolgateError): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, e.message, { code: e.code, ...e.data });
}

export interface ApprovalCall {
  readonly rt: Runtime;
  readonly server: Server;
  readonly ctx: ServerContext;
  readonly asking: ApprovalAsking;
  readonly taskId: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Runs the call through the runtime (again after an answer). */
  readonly run: () => Promise<Receipt>;
}

export type ApprovalOutcome = { readonly receipt: Receipt } | { readonly inputRequired: ReturnType<typeof inputRequired> };

/** Runs the call; when it needs an approval and the client can ask a person, asks. */
export async function callAskingApproval(c: ApprovalCall): Promise<ApprovalOutcome> {
  const request = digestOf({ tool: c.tool, arguments: c.args });
  const by = `mcp:${c.server.getClientVersion()?.name ?? 'unknown client'}`;
  const presented = c.ctx.mcpReq.requestState();
  if (presented !== undefined) {
    // An answer (2026-07-28 retry, or a 2025 client sending the same fields): checked, used once.
    const questions = await c.asking.questions();
    if (questions === null || typeof presented !== 'string') throw refusal(new ToolgateError('invalid_continuation', 'approval answer refused: this server asked no question', { reason: 'request_state_unknown' }));
    const ask = await questions.redeem(presented, { task_id: c.taskId, request }, Date.now()).catch((e: unknown) => {
      throw ToolgateError.isInstance(e) && e.code === 'invalid_continuation' ? refusal(e) : e;
    });
    const view = inputResponse(c.ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
    const answer = view.kind === 'elicit' ? answerOf(view) : null;
    if (answer !== null) await questions.answer(ask, answer, by, Date.now());
    // One question per call: what follows an answer (or a cancel) is the call's own outcome.
    return { receipt: await c.run() };
  }

  const receipt = await c.run();
  const approvalId = receipt.error?.code === 'approval_required' ? receipt.error.data['approval_id'] : undefined;
  if (typeof approvalId !== 'string') return { receipt };
  const negotiated = c.server.getNegotiatedProtocolVersion();
  const modern = c.ctx.mcpReq.envelope !== undefined || (negotiated !== undefined && negotiated >= '2026-07-28');
  if (!elicitsForms(modern ? modernCaps(c.ctx) : (c.server.getClientCapabilities() as ClientCaps))) return { receipt };
  const questions = await c.asking.questions();
  const approval = await c.rt.approvals.get(approvalId);
  if (questions === null || approval?.status !== 'pending') return { receipt };
  const { state } = await questions.ask(approval, request, Date.now());
  const params = approvalElicitation(approval);
  if (modern) return { inputRequired: inputRequired({ inputRequests: { [APPROVAL_INPUT_KEY]: inputRequired.elicit(params) }, requestState: state }) };

  // 2025-era: the server asks while the call waits; a timeout, a cancel or a client gone leave it pending.
  // A client that asked for progress hears from the call while the person decides, so that its
  // own request timeout (60 s by default, reset on progress when it asks) does not end the wait.
  const token = c.ctx.mcpReq._meta?.['progressToken'];
  let beats = 0;
  const beat = typeof token === 'string' || typeof token === 'number'
    ? setInterval(() => {
        // Progress must increase with each notification.
        c.ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++beats, message: `waiting for a person to answer approval ${approval.id}` } }).catch(() => {});
      }, Math.max(250, Math.min(10_000, Math.floor(c.asking.waitMs / 4))))
    : undefined;
  let response;
  try {
    response = await c.server.elicitInput(params, { relatedRequestId: c.ctx.mcpReq.id, timeout: c.asking.waitMs, signal: c.ctx.mcpReq.signal });
  } catch {
    return { receipt };
  } finally {
    clearInterval(beat);
  }
  const answer = answerOf(response);
  if (answer === null) return { receipt };
  // The same checks and the same single use as a 2026-07-28 answer.
  const ask = await questions.redeem(state, { task_id: c.taskId, request }, Date.now()).catch(() => null);
  if (ask === null) return { receipt };
  await questions.answer(ask, answer, by, Date.now());
  return { receipt: await c.run() };
}
