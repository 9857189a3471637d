// browser.click, browser.type, browser.select, browser.download, browser.upload. Each names the
// snapshot it was planned on and an element by a locator from it. A click on a form's submit
// control whose method is not GET is a submission: effect class `send`, approval required, and
// only during that call may the page send anything but GET/HEAD. An upload is egress of a
// workspace file: its path is a read resource of the call and the class is `send`.
import { closeSync, readFileSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { Download } from 'playwright-core';
import { ToolgateError, type Resource } from '../../protocol/index.js';
import { asOutcome, defineTool, type Normalized, type ToolDefinition } from '../../registry/index.js';
import { isToolgateTempName, readAtAsync, refuseSecretLink, type ResolvedPath } from '../../resources/index.js';
import { pageResources, type BrowserDeps } from './call.js';
import { runEffect } from './effect.js';
import { locatorKey, type ElementLocator } from './locator.js';
import {
  BROWSER_TIMEOUT_MS,
  clickArgs,
  downloadArgs,
  downloadResult,
  effectResult,
  selectArgs,
  typeArgs,
  uploadArgs,
  type ClickArgs,
  type DownloadArgs,
  type DownloadResult,
  type EffectResult,
  type SelectArgs,
  type TypeArgs,
  type UploadArgs,
} from './schema.js';

export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;
export const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;
const common = { owner: 'toolgate', module: import.meta.url, version: '1.0.0', reversible: false, cancellation: 'cooperative', max_output_bytes: 64 * 1024, timeout_ms: 60_000 } as const;
const unknown = async () => ({ settled: 'unknown' as const, reason: 'a page effect leaves no record to inspect once the browser is gone' });

/** The planned element as the snapshot saw it (normalize reads it; execute re-checks it live). */
function planned(deps: BrowserDeps, task: string, args: { snapshot_id: string; target: ElementLocator }) {
  const snap = deps.sessions.get(task)?.snapshots.get(args.snapshot_id);
  return { snap, element: snap?.elements.get(locatorKey(args.target)) };
}

function pageAction(deps: BrowserDeps, task: string, args: { snapshot_id: string; target: ElementLocator }): Normalized<{ write: boolean }> {
  const { snap, element } = planned(deps, task, args);
  const submits = element?.info.submits ?? null;
  if (submits && submits.method !== 'GET') {
    // A submission is bound (approval included) to where it goes and what was planned.
    return {
      resources: pageResources(submits.action),
      effect_class: 'send',
      approval_required: true,
      binding: { snapshot_id: args.snapshot_id, locator: locatorKey(args.target), method: submits.method, action: submits.action, page: snap?.url ?? null },
      prepared: { write: true },
    };
  }
  return { resources: pageResources(snap?.url), prepared: { write: false } };
}

export function createBrowserClick(deps: BrowserDeps): ToolDefinition<ClickArgs, EffectResult, { write: boolean }> {
  return defineTool<ClickArgs, EffectResult, { write: boolean }>({
    ...common,
    name: 'browser.click',
    description: 'Click an element named by a locator of a snapshot. Refused stale_page_state when the page moved on since that snapshot. A click that submits a form by POST (or any non-GET) is a `send` effect, decided by policy like any send before a byte leaves.',
    effect_class: 'read',
    capabilities: ['network'],
    args: clickArgs,
    result: effectResult,
    idempotency: 'reconcile',
    reconcile: unknown,
    normalize: (args, ctx) => pageAction(deps, ctx.task_id as string, args),
    execute: (outer) =>
      asOutcome(outer, (ctx) =>
        runEffect(ctx as never, deps, { write: ctx.prepared.write, sends: true }, async (t) => {
          await t.handle.click({ timeout: BROWSER_TIMEOUT_MS });
          return { extra: {} };
        }),
      ),
  });
}

export function createBrowserType(deps: BrowserDeps): ToolDefinition<TypeArgs, EffectResult, undefined> {
  return defineTool<TypeArgs, EffectResult>({
    ...common,
    name: 'browser.type',
    description: 'Fill a text field named by a locator of a snapshot (replacing its value). Nothing leaves the page until a submission.',
    effect_class: 'read',
    capabilities: ['network'],
    args: typeArgs,
    result: effectResult,
    idempotency: 'safe_to_repeat',
    redaction: { fields: [], patterns: true },
    normalize: (args, ctx) => ({ resources: pageResources(planned(deps, ctx.task_id as string, args).snap?.url), prepared: undefined }),
    execute: (outer) =>
      asOutcome(outer, (ctx) =>
        runEffect(ctx as never, deps, { write: false, sends: false }, async (t) => {
          await t.handle.fill(ctx.args.text, { timeout: BROWSER_TIMEOUT_MS });
          return { extra: {} };
        }),
      ),
  });
}

export function createBrowserSelect(deps: BrowserDeps): ToolDefinition<SelectArgs, EffectResult, undefined> {
  return defineTool<SelectArgs, EffectResult>({
    ...common,
    name: 'browser.select',
    description: 'Choose options (by value or label) of a select element named by a locator of a snapshot.',
    effect_class: 'read',
    capabilities: ['network'],
    args: selectArgs,
    result: effectResult,
    idempotency: 'safe_to_repeat',
    normalize: (args, ctx) => ({ resources: pageResources(planned(deps, ctx.task_id as string, args).snap?.url), prepared: undefined }),
    execute: (outer) =>
      asOutcome(outer, (ctx) =>
        runEffect(ctx as never, deps, { write: false, sends: false }, async (t) => {
          const chosen = await t.handle.selectOption(ctx.args.values, { timeout: BROWSER_TIMEOUT_MS });
          if (chosen.length === 0) throw new ToolgateError('no_match', `no option of ${locatorKey(ctx.args.target)} matches ${JSON.stringify(ctx.args.values)}`, { path: locatorKey(ctx.args.target), candidates: [] });
          return { extra: {} };
        }),
      ),
  });
}

export function createBrowserDownload(deps: BrowserDeps): ToolDefinition<DownloadArgs, DownloadResult, { write: boolean }> {
  return defineTool<DownloadArgs, DownloadResult, { write: boolean }>({
    ...common,
    name: 'browser.download',
    description: 'Click an element that starts a download and keep the file as an artifact marked untrusted (never written to the workspace; an fs.write of it is a separate decision).',
    effect_class: 'read',
    capabilities: ['network'],
    args: downloadArgs,
    result: downloadResult,
    idempotency: 'reconcile',
    reconcile: unknown,
    normalize: (args, ctx) => pageAction(deps, ctx.task_id as string, args),
    execute: (outer) =>
      asOutcome(outer, (ctx) =>
        runEffect(ctx as never, deps, { write: ctx.prepared.write, sends: true }, async (t) => {
          const [download] = (await Promise.all([t.page.waitForEvent('download', { timeout: BROWSER_TIMEOUT_MS }), t.handle.click({ timeout: BROWSER_TIMEOUT_MS })])) as [Download, void];
          const path = await download.path();
          try {
            const bytes = readFileSync(path);
            if (bytes.length > MAX_DOWNLOAD_BYTES) throw new ToolgateError('limit_exceeded', `the download is ${bytes.length} bytes; the limit is ${MAX_DOWNLOAD_BYTES}`, { limit: MAX_DOWNLOAD_BYTES, size: bytes.length });
            const ref = ctx.artifacts.put(bytes, 'application/octet-stream', `browser_download_untrusted:${basename(download.suggestedFilename())}`);
            return { extra: { download: { artifact: ref.digest, suggested_filename: download.suggestedFilename(), size: bytes.length, untrusted: true as const } }, artifacts: [ref] };
          } finally {
            rmSync(path, { force: true });
          }
        }),
      ),
  });
}

export function createBrowserUpload(deps: BrowserDeps): ToolDefinition<UploadArgs, EffectResult, { file: ResolvedPath }> {
  return defineTool<UploadArgs, EffectResult, { file: ResolvedPath }>({
    ...common,
    name: 'browser.upload',
    description: "Put a workspace file into a file input named by a locator of a snapshot: egress, so its class is `send`, the file's path is a read resource and the page's host the destination.",
    effect_class: 'send',
    capabilities: ['network', 'fs.read'],
    args: uploadArgs,
    result: effectResult,
    idempotency: 'reconcile',
    reconcile: unknown,
    normalize(args, ctx) {
      const file = ctx.workspace.resolve(args.path);
      if (!file.exists) throw new ToolgateError('not_found', `no such file: ${file.path}`, { path: file.path });
      if (file.kind === 'directory') throw new ToolgateError('invalid_resource', `${file.path} is a directory`, { path: file.path, kind: 'directory' });
      if (file.components.some(isToolgateTempName)) throw new ToolgateError('invalid_resource', `${file.path} is a Toolgate temporary entry`, { path: file.path, reason: 'toolgate_temp_file' });
      if (ctx.workspace.classifier.classify(file.path) === 'secret') throw new ToolgateError('secret_path', `${file.path} is classified as a secret path`, { path: file.path });
      const page = pageResources(planned(deps, ctx.task_id as string, args).snap?.url);
      const resources: Resource[] = [...page, { kind: 'path', path: file.path, access: 'read' }];
      return { resources, binding: { snapshot_id: args.snapshot_id, locator: locatorKey(args.target), path: file.path }, prepared: { file } };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const { fd, st } = ctx.workspace.openFileForRead(ctx.prepared.file);
        let bytes: Buffer;
        try {
          await refuseSecretLink(ctx.workspace, ctx.prepared.file.path, st, ctx.signal);
          if (st.size > MAX_UPLOAD_BYTES) throw new ToolgateError('limit_exceeded', `${ctx.prepared.file.path} is ${st.size} bytes; an upload may be ${MAX_UPLOAD_BYTES}`, { limit: MAX_UPLOAD_BYTES, size: st.size });
          bytes = await readAtAsync(fd, 0, st.size, ctx.signal);
        } finally {
          closeSync(fd);
        }
        const kept = ctx.artifacts.put(bytes, 'application/octet-stream', `browser_upload:${ctx.prepared.file.path}`);
        return runEffect(ctx as never, deps, { write: false, sends: true }, async (t) => {
          // Bytes, never a path: the browser cannot see the workspace (jail.ts).
          await t.handle.setInputFiles({ name: basename(ctx.prepared.file.path), mimeType: 'application/octet-stream', buffer: bytes }, { timeout: BROWSER_TIMEOUT_MS });
          return { extra: {}, artifacts: [kept] };
        });
      }),
  });
}
