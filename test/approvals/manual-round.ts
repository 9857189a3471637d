// One approval round of a 2026-07-28 call by hand (the SDK client in manual mode): the first
// request gets the question and its requestState; the retry carries an answer and the state.
import assert from 'node:assert/strict';
import { ProtocolError, type CallToolRequestParams, type Client } from '@modelcontextprotocol/client';

export interface Asked {
  readonly requestState: string;
  readonly approvalId: string;
  readonly message: string;
}

export const APPROVE = { approval: { action: 'accept', content: { decision: 'approve' } } };

/** The first round of a call in manual mode: the question and its state, nothing answered. */
export async function ask(c: Client, args: Record<string, unknown>): Promise<Asked> {
  const r = (await c.callTool({ name: 'fs_write', arguments: args }, { allowInputRequired: true })) as unknown as {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: { message: string; requestedSchema: unknown } }>;
  };
  assert.equal(r.resultType, 'input_required');
  const q = r.inputRequests?.['approval'];
  assert.equal(q?.method, 'elicitation/create');
  const id = /approval (apr_[0-9a-f-]+)/.exec(q?.params.message ?? '')?.[1];
  assert.ok(r.requestState && id, 'a state and the approval it asks about');
  return { requestState: r.requestState, approvalId: id, message: q?.params.message ?? '' };
}

/** The retry a client makes with its answer and the state. */
export function answer(c: Client, args: Record<string, unknown>, requestState: string, inputResponses: Record<string, unknown> = APPROVE): Promise<unknown> {
  return c.callTool({ name: 'fs_write', arguments: args, inputResponses, requestState } as CallToolRequestParams, { allowInputRequired: true });
}

export async function refusedWith(p: Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ProtocolError, String(e));
    assert.equal(e.code, -32602);
    assert.deepEqual(e.data, { code: 'invalid_continuation', reason: `request_state_${reason}` });
    return true;
  });
}

