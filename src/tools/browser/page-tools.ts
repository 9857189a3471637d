// browser.open, browser.navigate, browser.snapshot, browser.close: reads of the web. The host a
// URL names is the call's resource (grant ∧ policy decide it before anything loads).
import { ToolgateError, type TaskId } from '../../protocol/index.js';
import { asOutcome, defineTool, type NormalizeContext, type ToolDefinition } from '../../registry/index.js';
import type { DestinationGrant } from '../../resources/index.js';
import { authorize, hostResource, inCall, sessionOf, tabOf, type BrowserDeps } from './call.js';
import { loadUrl } from './navigation.js';
import { BrowserSession } from './session.js';
import { takeSnapshot } from './take-snapshot.js';
import {
  BROWSER_TIMEOUT_MS,
  closeArgs,
  closeResult,
  navResult,
  navigateArgs,
  openArgs,
  snapshotArgs,
  snapshotResult,
  type CloseArgs,
  type CloseResult,
  type NavResult,
  type NavigateArgs,
  type OpenArgs,
  type SnapshotArgs,
  type SnapshotResult,
} from './schema.js';

const common = { owner: 'toolgate', module: import.meta.url, version: '1.0.0', reversible: false, cancellation: 'cooperative', max_output_bytes: 512 * 1024 } as const;

async function grantOf(ctx: NormalizeContext): Promise<DestinationGrant> {
  if (!ctx.destinationGrant) throw new ToolgateError('internal_error', 'the browser tools need the grant of the task to authorize destinations');
  return ctx.destinationGrant();
}

export function createBrowserOpen(deps: BrowserDeps): ToolDefinition<OpenArgs, NavResult, { grant: DestinationGrant }> {
  return defineTool<OpenArgs, NavResult, { grant: DestinationGrant }>({
    ...common,
    name: 'browser.open',
    description:
      "Open a tab (starting the task's browser: a fresh profile, no host cookies, storage or extensions) and load `url`. Every request the page makes is authorized like http.request (resolved, metadata and private addresses refused unless granted, each redirect again); a main-frame navigation to another origin needs its own decision.",
    effect_class: 'read',
    capabilities: ['network'],
    args: openArgs,
    result: navResult,
    timeout_ms: 90_000,
    idempotency: 'safe_to_repeat',
    async normalize(args, ctx) {
      const grant = await grantOf(ctx);
      if (args.url !== undefined) await authorize(args.url, grant, deps.resolver);
      return { resources: args.url !== undefined ? [hostResource(args.url)] : [], prepared: { grant } };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const task = ctx.task_id as string;
        // Cancelled while Chromium starts: the browser being started is ended as soon as it exists.
        const onAbort = (): void => void deps.sessions.end(task);
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        let session: BrowserSession;
        try {
          session = await deps.sessions.open(task, () =>
            BrowserSession.launch({ grant: ctx.prepared.grant, resolver: deps.resolver, stateDir: ctx.hidden_paths[0] ?? ctx.workspace.root, hidden: [ctx.workspace.root], ...(deps.chromium ? { chromium: deps.chromium } : {}) }),
          );
        } finally {
          ctx.signal.removeEventListener('abort', onAbort);
        }
        return inCall(ctx as never, deps, session, async () => {
          const { page } = await session.newTab();
          if (ctx.args.url === undefined) return { status: 'succeeded', result: { page: { tab: session.tabId(page), url: page.url(), generation: 0, a11y_digest: null }, status: null, tabs: session.tabs().map((t) => t.id) } };
          return loadUrl(session, page, ctx.args.url, ctx.signal);
        });
      }),
    endTask: (task: TaskId) => deps.sessions.end(task as string),
    dispose: () => deps.sessions.endAll(),
  });
}

export function createBrowserNavigate(deps: BrowserDeps): ToolDefinition<NavigateArgs, NavResult, undefined> {
  return defineTool<NavigateArgs, NavResult>({
    ...common,
    name: 'browser.navigate',
    description: 'Load `url` in an open tab. The host is this call\'s resource; the page\'s requests are authorized like http.request. Snapshots of the tab taken before are stale afterwards.',
    effect_class: 'read',
    capabilities: ['network'],
    args: navigateArgs,
    result: navResult,
    timeout_ms: 60_000,
    idempotency: 'safe_to_repeat',
    async normalize(args, ctx) {
      await authorize(args.url, await grantOf(ctx), deps.resolver);
      return { resources: [hostResource(args.url)], prepared: undefined };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const session = sessionOf(deps, ctx.task_id as string);
        return inCall(ctx as never, deps, session, () => loadUrl(session, tabOf(session, ctx.args.tab), ctx.args.url, ctx.signal));
      }),
  });
}

export function createBrowserSnapshot(deps: BrowserDeps): ToolDefinition<SnapshotArgs, SnapshotResult, undefined> {
  return defineTool<SnapshotArgs, SnapshotResult>({
    ...common,
    name: 'browser.snapshot',
    description:
      'The page as it is now: tab and frame ids, URL, navigation generation, accessibility tree (and its digest), and the interactive elements each named by a stable locator (role and name, test id, CSS last). Effects name the snapshot_id and a locator from it; they are refused stale_page_state when the page moved on.',
    effect_class: 'read',
    capabilities: ['network'],
    args: snapshotArgs,
    result: snapshotResult,
    timeout_ms: 60_000,
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const session = sessionOf(deps, ctx.task_id as string);
        return inCall(ctx as never, deps, session, async () => {
          const page = tabOf(session, ctx.args.tab);
          const frame = ctx.args.frame === undefined ? page.mainFrame() : page.frames().find((f) => session.frameId(f) === ctx.args.frame);
          if (!frame) throw new ToolgateError('not_found', `no frame ${ctx.args.frame ?? ''} in tab ${ctx.args.tab}`, { path: ctx.args.frame ?? '' });
          const { snapshot, tree, truncated } = await takeSnapshot(session, ctx.args.tab, page, frame, BROWSER_TIMEOUT_MS);
          const result: SnapshotResult = {
            snapshot_id: snapshot.id,
            tab: snapshot.tab,
            frame: snapshot.frameId,
            url: snapshot.url,
            generation: snapshot.generation,
            a11y_digest: snapshot.digest,
            tree,
            tree_truncated: truncated,
            elements: [...snapshot.elements.values()].map((e) => ({ locator: e.locator, tag: e.info.tag, submits: e.info.submits })),
            frames: page.frames().filter((f) => f !== page.mainFrame()).map((f) => ({ frame: session.frameId(f), name: f.name(), url: f.url() })),
            tabs: session.tabs().map((t) => ({ tab: t.id, url: t.page.url() })),
          };
          return { status: 'succeeded', result, evidence: { page: { tab: snapshot.tab, frame: snapshot.frameId, url: snapshot.url, generation: snapshot.generation, a11y_digest: snapshot.digest } } };
        });
      }),
  });
}

export function createBrowserClose(deps: BrowserDeps): ToolDefinition<CloseArgs, CloseResult, undefined> {
  return defineTool<CloseArgs, CloseResult>({
    ...common,
    name: 'browser.close',
    description: "Close a tab, or (without `tab`) the task's browser: Chromium ends and its profile (cookies, storage, downloads not taken) is removed.",
    effect_class: 'read',
    capabilities: ['network'],
    args: closeArgs,
    result: closeResult,
    timeout_ms: 30_000,
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    async execute(ctx) {
      const task = ctx.task_id as string;
      const session = deps.sessions.get(task);
      if (!session) return { status: 'succeeded', result: { closed: 'none', tabs: [] } };
      if (ctx.args.tab === undefined) {
        await deps.sessions.end(task);
        return { status: 'succeeded', result: { closed: 'browser', tabs: [] } };
      }
      const page = session.tab(ctx.args.tab);
      if (page) await page.close();
      return { status: 'succeeded', result: { closed: page ? 'tab' : 'none', tabs: session.tabs().map((t) => t.id) } };
    },
  });
}
