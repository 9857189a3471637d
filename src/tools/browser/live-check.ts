// The re-check right before an effect: the snapshot the effect was planned on must still be the
// page. Any difference refuses with `stale_page_state` and nothing is done; the element acted on
// is the very node checked (its handle), so a re-render after the check fails the action instead
// of landing on a twin.
import type { ElementHandle, Frame, Page } from 'playwright-core';
import { ToolgateError } from '../../protocol/index.js';
import { locate, locatorKey, type ElementLocator } from './locator.js';
import type { BrowserSession } from './session.js';
import type { Snapshot, SnapshotElement } from './snapshots.js';
import { SAME_NODE } from './take-snapshot.js';

type StaleReason = 'unknown_snapshot' | 'not_in_snapshot' | 'tab' | 'frame' | 'url' | 'generation' | 'missing' | 'ambiguous' | 'element_identity';

export function stale(
  reason: StaleReason,
  snapshotId: string,
  tab: string | null,
  locator: ElementLocator | null,
  expected: string | number | null,
  actual: string | number | null,
): ToolgateError<'stale_page_state'> {
  const what = locator ? ` (${locatorKey(locator)})` : '';
  return new ToolgateError('stale_page_state', `the page is not what snapshot ${snapshotId} saw: ${reason}${what}; take a new snapshot`, {
    reason,
    snapshot_id: snapshotId,
    tab,
    locator: locator ? locatorKey(locator) : null,
    expected,
    actual,
  });
}

export interface LiveTarget {
  readonly snapshot: Snapshot;
  readonly element: SnapshotElement;
  readonly page: Page;
  readonly frame: Frame;
  /** The live node: the snapshot's own. */
  readonly handle: ElementHandle;
}

/** The snapshot by id, and its tab, frame, URL and generation still current. */
export function liveSnapshot(session: BrowserSession | undefined, snapshotId: string): Snapshot {
  const s = session?.snapshots.get(snapshotId);
  if (!session || !s) throw stale('unknown_snapshot', snapshotId, null, null, null, null);
  if (s.page.isClosed() || session.tab(s.tab) !== s.page) throw stale('tab', snapshotId, s.tab, null, s.tab, null);
  if (s.frame.isDetached() || !s.page.frames().includes(s.frame)) throw stale('frame', snapshotId, s.tab, null, s.frameId, null);
  const generation = session.generation(s.frame);
  if (generation !== s.generation) throw stale('generation', snapshotId, s.tab, null, s.generation, generation);
  if (s.frame.url() !== s.url) throw stale('url', snapshotId, s.tab, null, s.url, s.frame.url());
  return s;
}

export async function liveElement(session: BrowserSession | undefined, snapshotId: string, locator: ElementLocator): Promise<LiveTarget> {
  const snapshot = liveSnapshot(session, snapshotId);
  const element = snapshot.elements.get(locatorKey(locator));
  if (!element) throw stale('not_in_snapshot', snapshotId, snapshot.tab, locator, null, null);
  const handles = await locate(snapshot.frame, locator).elementHandles();
  try {
    if (handles.length === 0) throw stale('missing', snapshotId, snapshot.tab, locator, 1, 0);
    if (handles.length > 1) throw stale('ambiguous', snapshotId, snapshot.tab, locator, 1, handles.length);
    const same = await (handles[0] as ElementHandle).evaluate(SAME_NODE, element.handle).catch(() => false);
    if (!same) throw stale('element_identity', snapshotId, snapshot.tab, locator, null, null);
  } finally {
    for (const h of handles) void h.dispose().catch(() => undefined);
  }
  // Checked again after the awaits above: a navigation during them is a navigation before the effect.
  liveSnapshot(session, snapshotId);
  return { snapshot, element, page: snapshot.page, frame: snapshot.frame, handle: element.handle };
}
