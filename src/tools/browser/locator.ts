// Elements are named by what a person reading the page would name them: role and accessible
// name first, a test id next, CSS only when neither is unique. Never an index: the nth button
// is another button after a re-render.
import type { Frame, Locator } from 'playwright-core';
import { z } from 'zod';

export const locatorSchema = z.union([
  z.strictObject({ role: z.string().min(1).max(64), name: z.string().max(512) }),
  z.strictObject({ test_id: z.string().min(1).max(256) }),
  z.strictObject({ css: z.string().min(1).max(1024) }),
]);
export type ElementLocator = z.infer<typeof locatorSchema>;

/** One text per locator: how a snapshot's elements are looked up and how refusals name them. */
export function locatorKey(l: ElementLocator): string {
  if ('role' in l) return `role=${l.role}[name=${JSON.stringify(l.name)}]`;
  if ('test_id' in l) return `testid=${JSON.stringify(l.test_id)}`;
  return `css=${l.css}`;
}

export function locate(frame: Frame, l: ElementLocator): Locator {
  if ('role' in l) return frame.getByRole(l.role as Parameters<Frame['getByRole']>[0], { name: l.name, exact: true });
  if ('test_id' in l) return frame.getByTestId(l.test_id);
  return frame.locator(l.css);
}
