import { z } from 'zod';
import { locatorSchema } from './locator.js';

export const BROWSER_TIMEOUT_MS = 30_000;
const tabId = z.string().regex(/^t[0-9]{1,6}$/).describe('A tab id from browser.open or a snapshot');
const snapshotId = z.string().regex(/^s[0-9]{1,9}$/).describe('The snapshot the effect was planned on');
const url = z.string().min(1).max(8192).describe('http(s) URL; its host must be in the grant');

export const pageStateSchema = z.strictObject({
  tab: z.string(),
  url: z.string(),
  generation: z.number().int().describe('Main-frame (or snapshot frame) navigations since the tab opened'),
  a11y_digest: z.string().nullable(),
});

export const openArgs = z.strictObject({ url: url.optional().describe('Opened in a new tab; without it the tab is about:blank') });
export const navigateArgs = z.strictObject({ tab: tabId, url });
export const closeArgs = z.strictObject({ tab: tabId.optional().describe('Close this tab only; without it the whole browser (and its profile) goes') });
export const snapshotArgs = z.strictObject({ tab: tabId, frame: z.string().regex(/^f[0-9]{1,6}$/).optional().describe("A frame id from the tab's snapshot; default the main frame") });
const effectBase = { snapshot_id: snapshotId, target: locatorSchema.describe('The element as the snapshot named it: {role,name}, {test_id} or {css}') };
export const clickArgs = z.strictObject(effectBase);
export const typeArgs = z.strictObject({ ...effectBase, text: z.string().max(64 * 1024) });
export const selectArgs = z.strictObject({ ...effectBase, values: z.array(z.string().max(1024)).min(1).max(64) });
export const downloadArgs = z.strictObject(effectBase);
export const uploadArgs = z.strictObject({ ...effectBase, path: z.string().min(1).max(4096).describe('A workspace file put into the file input') });

export const navResult = z.strictObject({ page: pageStateSchema, status: z.number().int().nullable(), tabs: z.array(z.string()) });
export const closeResult = z.strictObject({ closed: z.enum(['tab', 'browser', 'none']), tabs: z.array(z.string()) });

export const snapshotResult = z.strictObject({
  snapshot_id: z.string(),
  tab: z.string(),
  frame: z.string(),
  url: z.string(),
  generation: z.number().int(),
  a11y_digest: z.string(),
  tree: z.string().describe("Playwright's aria snapshot of the frame (YAML)"),
  tree_truncated: z.boolean(),
  elements: z.array(z.strictObject({ locator: locatorSchema, tag: z.string(), submits: z.strictObject({ method: z.string(), action: z.string() }).nullable() })),
  frames: z.array(z.strictObject({ frame: z.string(), name: z.string(), url: z.string() })),
  tabs: z.array(z.strictObject({ tab: z.string(), url: z.string() })),
});

export const effectResult = z.strictObject({
  before: pageStateSchema,
  after: pageStateSchema,
  screenshot: z.string().nullable().describe('Digest of the screenshot artifact taken after the effect'),
  tabs: z.array(z.string()).describe('Open tabs after the effect (a popup adds one)'),
});

export const downloadResult = effectResult.extend({
  download: z.strictObject({ artifact: z.string(), suggested_filename: z.string(), size: z.number().int(), untrusted: z.literal(true) }),
});

export type OpenArgs = z.infer<typeof openArgs>;
export type NavigateArgs = z.infer<typeof navigateArgs>;
export type CloseArgs = z.infer<typeof closeArgs>;
export type SnapshotArgs = z.infer<typeof snapshotArgs>;
export type ClickArgs = z.infer<typeof clickArgs>;
export type TypeArgs = z.infer<typeof typeArgs>;
export type SelectArgs = z.infer<typeof selectArgs>;
export type DownloadArgs = z.infer<typeof downloadArgs>;
export type UploadArgs = z.infer<typeof uploadArgs>;
export type NavResult = z.infer<typeof navResult>;
export type CloseResult = z.infer<typeof closeResult>;
export type SnapshotResult = z.infer<typeof snapshotResult>;
export type EffectResult = z.infer<typeof effectResult>;
export type DownloadResult = z.infer<typeof downloadResult>;
