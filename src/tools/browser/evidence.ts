// What a browser receipt carries about the page: where it was and where it ended, its generation
// and accessibility digest, which requests the guard or the proxy refused, and for an effect a
// screenshot kept as an artifact (the receipt names it by digest).
import { createHash } from 'node:crypto';
import type { Frame, Page } from 'playwright-core';
import type { ArtifactRef } from '../../protocol/index.js';
import type { ArtifactSink } from '../../registry/index.js';
import type { BrowserSession } from './session.js';

export interface PageState {
  readonly tab: string;
  readonly url: string;
  readonly generation: number;
  /** sha256 of the frame's aria snapshot; null when the page could not be read (closed, navigating). */
  readonly a11y_digest: string | null;
}

export async function pageState(session: BrowserSession, page: Page, frame: Frame = page.mainFrame()): Promise<PageState> {
  let digest: string | null = null;
  if (!page.isClosed() && !frame.isDetached()) {
    const tree = await frame.locator(':root').ariaSnapshot({ timeout: 5_000 }).catch(() => null);
    digest = tree === null ? null : createHash('sha256').update(tree).digest('hex');
  }
  return { tab: session.tabId(page), url: page.isClosed() ? 'about:closed' : frame.url(), generation: session.generation(frame), a11y_digest: digest };
}

export async function screenshotArtifact(page: Page, artifacts: ArtifactSink): Promise<ArtifactRef | null> {
  if (page.isClosed()) return null;
  const png = await page.screenshot({ timeout: 10_000 }).catch(() => null);
  return png ? artifacts.put(png, 'image/png', 'browser_screenshot') : null;
}

/** Refusals since `from` (indexes into the proxy's and the guard's records). */
export function refusalsSince(session: BrowserSession, from: { proxy: number; guard: number }): { proxy: unknown[]; guard: unknown[] } {
  const report = session.network();
  return {
    proxy: report.connections.slice(from.proxy).filter((c) => c.decision !== 'allowed'),
    guard: session.guardRefusals.slice(from.guard),
  };
}

export function refusalMark(session: BrowserSession): { proxy: number; guard: number } {
  return { proxy: session.network().connections.length, guard: session.guardRefusals.length };
}
