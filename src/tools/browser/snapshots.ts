// The snapshots a session has handed out. An effect names one; it holds what the effect is
// checked against: the tab and frame (by object), the URL and navigation generation then, and
// each element's DOM node (an ElementHandle) so that a re-rendered twin is not taken for it.
import type { ElementHandle, Frame, Page } from 'playwright-core';
import type { ElementLocator } from './locator.js';

/** What the page says the element does: decides the effect class of a click on it. */
export interface ElementInfo {
  readonly tag: string;
  readonly type: string | null;
  /** A submit control of a form: its method (upper case) and action URL. */
  readonly submits: { readonly method: string; readonly action: string } | null;
  readonly href: string | null;
}

export interface SnapshotElement {
  readonly key: string;
  readonly locator: ElementLocator;
  readonly role: string | null;
  readonly name: string | null;
  readonly info: ElementInfo;
  readonly handle: ElementHandle;
}

export interface Snapshot {
  readonly id: string;
  readonly tab: string;
  readonly page: Page;
  readonly frame: Frame;
  readonly frameId: string;
  readonly url: string;
  readonly generation: number;
  readonly digest: string;
  readonly elements: ReadonlyMap<string, SnapshotElement>;
}

/** Snapshots kept per session; the oldest go (and their handles are released) past this. */
export const MAX_SNAPSHOTS = 16;

export class SnapshotStore {
  readonly #byId = new Map<string, Snapshot>();
  #next = 1;

  nextId(): string {
    return `s${this.#next++}`;
  }

  add(s: Snapshot): void {
    this.#byId.set(s.id, s);
    while (this.#byId.size > MAX_SNAPSHOTS) {
      const oldest = this.#byId.keys().next().value as string;
      this.#release(oldest);
    }
  }

  get(id: string): Snapshot | undefined {
    return this.#byId.get(id);
  }

  clear(): void {
    for (const id of [...this.#byId.keys()]) this.#release(id);
  }

  #release(id: string): void {
    const s = this.#byId.get(id);
    this.#byId.delete(id);
    for (const e of s?.elements.values() ?? []) void e.handle.dispose().catch(() => undefined);
  }
}
