// One effect on a page element, the same way for click, type, select, download and upload:
// re-check the snapshot against the live page (live-check.ts), act on the checked node, then
// record where the page ended (URL, generation, digest, a screenshot artifact) and what the guard
// or the proxy refused meanwhile. An effect whose main-frame navigation went to a host no
// decision covered (the guard refused it, or the proxy refused a redirect hop there and the tab
// shows the proxy's answer) is rechecked; refused, the tab is blanked and the call is denied.
import type { ArtifactRef } from '../../protocol/index.js';
import { ToolgateError } from '../../protocol/index.js';
import type { ExecuteContext, Recheck, ToolOutcome } from '../../registry/index.js';
import { inCall, sessionOf, type BrowserDeps } from './call.js';
import { pageState, refusalMark, refusalsSince, screenshotArtifact } from './evidence.js';
import { liveElement, type LiveTarget } from './live-check.js';
import { locatorKey, type ElementLocator } from './locator.js';
import type { EffectResult } from './schema.js';

export interface EffectPlan {
  /** Requests other than GET/HEAD may leave during the call (an approved submission or upload). */
  readonly write: boolean;
  /** The effect may reach a server (markSent before acting: a crash after is ambiguous). */
  readonly sends: boolean;
}

export async function runEffect<X extends object>(
  ctx: ExecuteContext<{ readonly snapshot_id: string; readonly target: ElementLocator }, unknown>,
  deps: BrowserDeps,
  plan: EffectPlan,
  act: (t: LiveTarget) => Promise<{ extra: X; artifacts?: readonly ArtifactRef[] }>,
): Promise<ToolOutcome<EffectResult & X>> {
  const session = sessionOf(deps, ctx.task_id as string);
  return inCall(ctx as ExecuteContext<unknown, unknown>, deps, session, async () => {
    const target = await liveElement(session, ctx.args.snapshot_id, ctx.args.target);
    const { snapshot, page } = target;
    const before = { tab: snapshot.tab, url: snapshot.url, generation: snapshot.generation, a11y_digest: snapshot.digest };
    const mark = refusalMark(session);
    session.writeWindow = plan.write;
    if (plan.sends) await ctx.markSent({ snapshot_id: snapshot.id, locator: locatorKey(ctx.args.target), url: snapshot.url });
    const { extra, artifacts = [] } = await act(target);
    await page.waitForLoadState('load', { timeout: 10_000 }).catch(() => undefined);
    session.writeWindow = false;
    const origin = originOf(page.isClosed() ? '' : page.url());
    let refusedOrigin: string | null = null;
    let decision: Recheck | null = null;
    if (origin !== null && !session.decided.has(origin)) {
      decision = session.originCheck ? await session.originCheck(new URL(origin)) : null;
      if (decision?.outcome === 'allow') session.decided.allow(origin);
      else refusedOrigin = origin;
    }
    // A main-frame navigation the guard refused for its origin: the effect went somewhere this call has no decision for.
    const guarded = session.guardRefusals.slice(mark.guard).find((g) => g.reason === 'origin' && g.navigation);
    if (refusedOrigin === null && guarded) {
      refusedOrigin = originOf(guarded.url) ?? guarded.url;
      decision = guarded.decision ?? null;
    } else if (refusedOrigin !== null) await page.goto('about:blank').catch(() => undefined);
    const after = await pageState(session, page, page.isClosed() || snapshot.frame.isDetached() ? page.mainFrame() : snapshot.frame.parentFrame() === null ? page.mainFrame() : snapshot.frame);
    const shot = await screenshotArtifact(page, ctx.artifacts);
    const refusals = refusalsSince(session, mark);
    const evidence = { page_before: before, page_after: after, screenshot: shot?.digest ?? null, refusals, locator: locatorKey(ctx.args.target) };
    const all = [...artifacts, ...(shot ? [shot] : [])];
    if (refusedOrigin !== null) {
      const error = new ToolgateError('policy_denied', `the effect led the page to ${refusedOrigin}, an origin this call's decision does not cover; not followed (browser.navigate there to ask for it)`, {
        reasons: decision?.reasons ?? ['no decision could be made mid-call'],
        determining: decision?.determining ?? [],
        policy_version: decision?.policy_version ?? '',
        grant_digest: decision?.grant_digest ?? '',
        action_digest: decision?.action_digest ?? '',
        redirect_url: refusedOrigin,
      }).toBody();
      return { status: 'denied', result: null, error, evidence, artifacts: all };
    }
    const result = { before, after, screenshot: shot?.digest ?? null, tabs: session.tabs().map((t) => t.id), ...extra } as EffectResult & X;
    return { status: 'succeeded', result, evidence, artifacts: all };
  });
}

function originOf(url: string): string | null {
  if (!/^https?:/.test(url)) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
