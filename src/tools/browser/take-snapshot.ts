// Taking a snapshot: the frame's accessibility tree (Playwright's aria snapshot, digested), and
// the interactive elements each under the most stable locator that is unique right now.
import { createHash } from 'node:crypto';
import type { ElementHandle, Frame, Page } from 'playwright-core';
import { locate, locatorKey, type ElementLocator } from './locator.js';
import type { BrowserSession } from './session.js';
import type { ElementInfo, Snapshot, SnapshotElement } from './snapshots.js';

export const MAX_ELEMENTS = 200;
export const MAX_TREE_CHARS = 64 * 1024;
const INTERACTIVE = new Set(['button', 'link', 'textbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'menuitem', 'tab', 'searchbox', 'spinbutton', 'slider', 'switch']);

/** `- button "Send"` (or YAML-quoted `- 'button "a: b"'`) → role and name. */
export function roleLines(tree: string): { role: string; name: string }[] {
  const out: { role: string; name: string }[] = [];
  for (const raw of tree.split('\n')) {
    let line = raw.trim();
    if (!line.startsWith('- ')) continue;
    line = line.slice(2);
    if (line.startsWith("'")) line = line.slice(1, line.lastIndexOf("'")).replace(/''/g, "'");
    const m = /^([a-z]+) "((?:[^"\\]|\\.)*)"/.exec(line);
    if (!m || !INTERACTIVE.has(m[1] as string)) continue;
    let name: string;
    try {
      name = JSON.parse(`"${m[2] as string}"`) as string;
    } catch {
      continue;
    }
    out.push({ role: m[1] as string, name });
  }
  return out;
}

/**
 * A page function from its text. Playwright sends a function's source to the page; written as
 * TypeScript here, the compiler (tsx/esbuild) may wrap it in helpers that do not exist there,
 * and a plain string is evaluated as an expression, not called.
 */
export const pageFn = <F>(text: string): F => new Function(`return (${text});`)() as F;

export const SAME_NODE = pageFn<(a: unknown, b: unknown) => boolean>('(a, b) => a === b');

// Run in the page.
const INFO = `(el) => {
  const tag = el.tagName.toLowerCase();
  const type = el.getAttribute('type');
  const form = el.form || null;
  const submitType = (tag === 'button' && (type === null || type.toLowerCase() === 'submit')) || (tag === 'input' && type !== null && ['submit', 'image'].includes(type.toLowerCase()));
  const submits = form && submitType ? { method: (el.getAttribute('formmethod') || form.getAttribute('method') || 'get').toUpperCase(), action: el.formAction || form.action } : null;
  return { tag, type, submits, href: tag === 'a' ? el.href : null };
}`;

const FALLBACKS = `(els) => els.map((el) => {
  const tid = el.getAttribute('data-testid');
  if (tid) return { test_id: tid };
  if (el.id) return { css: '#' + CSS.escape(el.id) };
  const name = el.getAttribute('name');
  if (name) return { css: el.tagName.toLowerCase() + '[name="' + name.replace(/["\\\\]/g, '\\\\$&') + '"]' };
  return null;
})`;

const UNCOVERED = `(known) => {
  const seen = new Set(known);
  return [...document.querySelectorAll('input, select, textarea, button, a[href], [data-testid]')].filter((el) => !seen.has(el)).slice(0, ${MAX_ELEMENTS});
}`;

export async function takeSnapshot(session: BrowserSession, tab: string, page: Page, frame: Frame, timeout: number): Promise<{ snapshot: Snapshot; tree: string; truncated: boolean }> {
  const generation = session.generation(frame);
  const url = frame.url();
  const tree = await frame.locator(':root').ariaSnapshot({ timeout });
  const digest = createHash('sha256').update(tree).digest('hex');
  const elements = new Map<string, SnapshotElement>();
  const add = async (locator: ElementLocator, handle: ElementHandle, role: string | null, name: string | null): Promise<void> => {
    if (elements.size >= MAX_ELEMENTS) return;
    const key = locatorKey(locator);
    if (elements.has(key)) return;
    const info = (await handle.evaluate(pageFn<(el: unknown) => ElementInfo>(INFO))) as ElementInfo;
    elements.set(key, { key, locator, role, name, info, handle });
  };
  const ambiguous: ElementHandle[] = [];
  for (const { role, name } of roleLines(tree)) {
    if (elements.size >= MAX_ELEMENTS) break;
    const loc = locate(frame, { role, name });
    const handles = await loc.elementHandles();
    if (handles.length === 1) await add({ role, name }, handles[0] as ElementHandle, role, name);
    else ambiguous.push(...handles);
  }
  const known = [...elements.values()].map((e) => e.handle);
  const uncovered = await frame.evaluateHandle(pageFn<(k: unknown) => unknown[]>(UNCOVERED), known).then(async (arr) => {
    const props = await arr.getProperties();
    const out: ElementHandle[] = [];
    for (const v of props.values()) {
      const el = v.asElement();
      if (el) out.push(el);
    }
    await arr.dispose();
    return out;
  });
  for (const handle of [...ambiguous, ...uncovered]) {
    if (elements.size >= MAX_ELEMENTS) break;
    const [fallback] = (await frame.evaluate(pageFn<(els: unknown) => unknown>(FALLBACKS), [handle])) as (ElementLocator | null)[];
    if (!fallback) continue;
    const matches = await locate(frame, fallback).elementHandles();
    const unique = matches.length === 1 && (await (matches[0] as ElementHandle).evaluate(SAME_NODE, handle));
    for (const m of matches) void m.dispose();
    if (unique) await add(fallback, handle, null, null);
  }
  const snapshot: Snapshot = { id: session.snapshots.nextId(), tab, page, frame, frameId: session.frameId(frame), url, generation, digest, elements };
  session.snapshots.add(snapshot);
  return { snapshot, tree: tree.slice(0, MAX_TREE_CHARS), truncated: tree.length > MAX_TREE_CHARS };
}
