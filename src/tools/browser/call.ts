// What every browser call shares: the runtime's sessions and resolver, the host resource of a
// URL, and the call scope (the running call's recheck decides new origins; an abort ends the
// task's browser, whose page state is unknown after an interrupted call).
import type { Page } from 'playwright-core';
import type { Resource } from '../../protocol/index.js';
import { ToolgateError } from '../../protocol/index.js';
import type { ExecuteContext } from '../../registry/index.js';
import { WEB_SCHEMES, authorizeDestination, normalizeUrl, type AuthorizedDestination, type DestinationGrant, type HostResolver } from '../../resources/index.js';
import type { BrowserSession } from './session.js';
import type { BrowserSessions } from './sessions.js';

export interface BrowserDeps {
  readonly sessions: BrowserSessions;
  readonly resolver: HostResolver;
  readonly chromium?: string;
}

export function hostResource(url: string): Resource {
  const d = normalizeUrl(url, WEB_SCHEMES);
  return { kind: 'host', host: d.hostKind === 'ipv6' ? `[${d.host}]` : d.host, port: d.port };
}

/** The host of the page an effect acts on (about:blank and the like name none). */
export function pageResources(url: string | undefined): Resource[] {
  if (!url || !/^https?:/.test(url)) return [];
  try {
    return [hostResource(url)];
  } catch {
    return [];
  }
}

export async function authorize(url: string, grant: DestinationGrant, resolver: HostResolver): Promise<AuthorizedDestination> {
  return authorizeDestination(url, { schemes: WEB_SCHEMES, grant, resolver });
}

export async function inCall<T>(ctx: ExecuteContext<unknown, unknown>, deps: BrowserDeps, session: BrowserSession, run: () => Promise<T>): Promise<T> {
  const task = ctx.task_id as string;
  const onAbort = (): void => void deps.sessions.end(task);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const recheck = ctx.recheck;
  session.originCheck = recheck ? (url) => recheck({ resources: [hostResource(url.href)] }) : null;
  try {
    ctx.signal.throwIfAborted();
    return await run();
  } finally {
    session.originCheck = null;
    session.writeWindow = false;
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

export function sessionOf(deps: BrowserDeps, task: string): BrowserSession {
  const s = deps.sessions.get(task);
  if (!s) throw new ToolgateError('not_found', 'this task has no browser: call browser.open first', { path: 'browser' });
  return s;
}

export function tabOf(session: BrowserSession, tab: string): Page {
  const p = session.tab(tab);
  if (!p) throw new ToolgateError('not_found', `no open tab ${tab}`, { path: tab });
  return p;
}

/** The refusal the proxy answered a navigation with (its X-Toolgate-Refusal header), as a typed error. */
export function proxyRefusal(session: BrowserSession, url: string, header: string | undefined): ToolgateError<'destination_refused'> | null {
  if (header === undefined) return null;
  const rec = [...session.network().connections].reverse().find((c) => c.decision === 'refused');
  const reason = (['invalid_url', 'scheme', 'userinfo', 'zone_id', 'host_not_granted', 'metadata_name', 'unresolved', 'address_class'] as const).find((r) => r === header) ?? 'host_not_granted';
  return new ToolgateError('destination_refused', `the browser's request to ${rec?.host ?? url} was refused by the destination authorization: ${header}`, {
    url,
    host: rec?.host ?? null,
    port: rec?.port ?? null,
    address: rec?.address ?? null,
    class: null,
    reason,
  });
}
