// Loading a URL in a tab: its origin is decided by the call that names it (grant ∧ policy on
// the host, in the pipeline), every request it makes goes through the proxy, and a final answer
// the proxy wrote (a refused hop, a redirect to a metadata address) is a refusal, not a page.
import type { Page } from 'playwright-core';
import { type ToolOutcome } from '../../registry/index.js';
import { pageState } from './evidence.js';
import { proxyRefusal } from './call.js';
import { BROWSER_TIMEOUT_MS, type NavResult } from './schema.js';
import type { BrowserSession } from './session.js';

export async function loadUrl(session: BrowserSession, page: Page, url: string, signal: AbortSignal): Promise<ToolOutcome<NavResult>> {
  const before = await pageState(session, page);
  session.decided.allow(url);
  const mark = session.network().connections.length;
  const response = await page.goto(url, { timeout: BROWSER_TIMEOUT_MS, waitUntil: 'load', signal } as Parameters<Page['goto']>[1]).catch(async (e: unknown) => {
    signal.throwIfAborted();
    throw e;
  });
  const refused = proxyRefusal(session, url, response?.headers()['x-toolgate-refusal']);
  if (refused) {
    // The proxy's own answer is not a page the model should act on.
    await page.goto('about:blank').catch(() => undefined);
    return { status: 'denied', result: null, error: refused.toBody(), evidence: { before, refused: session.network().connections.slice(mark).filter((c) => c.decision !== 'allowed') } };
  }
  const after = await pageState(session, page);
  return {
    status: 'succeeded',
    result: { page: after, status: response?.status() ?? null, tabs: session.tabs().map((t) => t.id) },
    evidence: { page_before: before, page_after: after, network: session.network().connections.slice(mark) },
  };
}
