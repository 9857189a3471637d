// Debian's Chromium driven by playwright-core: the browser is the system package (prerequisites:
// `chromium`), never one a tool downloads. Layout checks compute from bounding boxes what a
// person would see broken: something wider than the viewport, a key panel with no size, two
// panels on top of each other.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'], timeout: 60_000 });
}

export interface Box {
  readonly sel: string;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface Layout {
  readonly viewportWidth: number;
  readonly scrollWidth: number;
  readonly panels: readonly Box[];
  /** Elements reaching past the viewport's right edge that no scrolling box of theirs clips. */
  readonly overflowing: readonly string[];
}

/**
 * Runs in the page. Kept as text: the test runner's compiler (tsx, esbuild) wraps named
 * functions in a helper that does not exist in the browser.
 */
const LAYOUT_SCRIPT = `(sels) => {
  const width = document.documentElement.clientWidth;
  const clipped = (el) => {
    for (let p = el.parentElement; p !== null && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  };
  const overflowing = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > width + 1 || r.left < -1) && !clipped(el)) overflowing.push(el.tagName.toLowerCase() + '.' + el.className + ' (' + Math.round(r.left) + '..' + Math.round(r.right) + ')');
  }
  return {
    viewportWidth: width,
    scrollWidth: document.documentElement.scrollWidth,
    panels: sels.map((sel) => {
      const r = document.querySelector(sel)?.getBoundingClientRect();
      return { sel, x: r?.x ?? 0, y: r?.y ?? 0, w: r?.width ?? 0, h: r?.height ?? 0 };
    }),
    overflowing,
  };
}`;

export async function layoutOf(page: Page, panels: readonly string[]): Promise<Layout> {
  return (await page.evaluate(`(${LAYOUT_SCRIPT})(${JSON.stringify(panels)})`)) as Layout;
}

/** Pairs of boxes whose areas intersect (touching edges is not overlapping). */
export function overlaps(boxes: readonly Box[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i] as Box;
      const b = boxes[j] as Box;
      const ix = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const iy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (ix > 0.5 && iy > 0.5) out.push(`${a.sel} × ${b.sel}`);
    }
  }
  return out;
}

/**
 * Where screenshots go: TOOLGATE_UI_SCREENSHOTS (e.g. docs/img, to refresh the docs' pictures),
 * else a folder under the system's temp dir.
 */
export function screenshotDir(): string {
  const dir = process.env['TOOLGATE_UI_SCREENSHOTS'] ?? join(tmpdir(), 'toolgate-ui-screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
