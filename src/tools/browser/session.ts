// One task's browser: a jailed Chromium (jail.ts) with a fresh profile under the state dir, its
// network through an authorizing proxy (sandbox/net-proxy: the grant's hosts, addresses resolved
// once, classified and pinned, metadata and private ranges refused unless named), and the page
// state effects are checked against (tabs, frames, navigation generations, snapshots).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page, Request, Route } from 'playwright-core';
import { ToolgateError } from '../../protocol/index.js';
import type { Recheck } from '../../registry/index.js';
import type { DestinationGrant, HostResolver } from '../../resources/index.js';
import { NetProxy, sweepDeadOwners, type NetworkReport } from '../../sandbox/index.js';
import { chromiumArgs, jailArgs, JAIL_BRIDGE_SOURCE, launcherScript } from './jail.js';
import { SnapshotStore } from './snapshots.js';
import { DecidedHosts } from './decided-hosts.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const BWRAP_PATH = '/usr/bin/bwrap';
const LAUNCH_TIMEOUT_MS = 60_000;

export interface LaunchOptions {
  readonly grant: DestinationGrant;
  readonly resolver: HostResolver;
  /** The runtime's state dir: the session lives beneath it and it is hidden from the browser. */
  readonly stateDir: string;
  /** Hidden from the browser as well (the workspace). */
  readonly hidden: readonly string[];
  readonly chromium?: string;
}

/** What decides a main-frame navigation to an origin not decided yet: the running call's recheck. */
export type OriginCheck = (url: URL) => Promise<Recheck>;

/** A request the page guard refused; for an origin, the decision that refused it (null: no call was running). */
export interface GuardRefusal {
  readonly method: string;
  readonly url: string;
  readonly reason: 'method' | 'origin';
  /** A main-frame navigation (the effect went elsewhere), not a subresource. */
  readonly navigation: boolean;
  readonly decision?: Recheck | null;
}

export class BrowserSession {
  readonly dir: string;
  readonly profileDir: string;
  readonly downloadsDir: string;
  readonly snapshots = new SnapshotStore();
  /** Hosts a decision allowed (open, navigate, a recheck): requests elsewhere need one. */
  readonly decided: DecidedHosts;
  /** Set by an approved submission or upload for the length of its call: requests other than GET/HEAD pass only then. */
  writeWindow = false;
  /** The running call's recheck, when a call is running. */
  originCheck: OriginCheck | null = null;
  /** Requests refused by the page guard (not the proxy): method or origin. */
  readonly guardRefusals: GuardRefusal[] = [];
  readonly #context: BrowserContext;
  readonly #proxy: NetProxy;
  readonly #tabs = new Map<string, Page>();
  readonly #tabIds = new WeakMap<Page, string>();
  readonly #frameIds = new WeakMap<Frame, string>();
  readonly #generations = new WeakMap<Frame, number>();
  #nextTab = 1;
  #nextFrame = 1;
  #closed: Promise<void> | null = null;
  #initial: Page | null;

  private constructor(dir: string, context: BrowserContext, proxy: NetProxy, decided: DecidedHosts) {
    this.dir = dir;
    this.decided = decided;
    this.profileDir = join(dir, 'profile');
    this.downloadsDir = join(dir, 'downloads');
    this.#context = context;
    this.#proxy = proxy;
    for (const p of context.pages()) this.#adopt(p);
    this.#initial = context.pages()[0] ?? null;
    context.on('page', (p) => this.#adopt(p));
  }

  static async launch(o: LaunchOptions): Promise<BrowserSession> {
    const root = join(o.stateDir, 'browser');
    mkdirSync(root, { recursive: true, mode: 0o700 });
    // A runtime killed with SIGKILL could not remove its profile (the task's cookies and storage).
    sweepDeadOwners(root, 'session-');
    const dir = mkdtempSync(join(root, `session-${process.pid}-`));
    let proxy: NetProxy | null = null;
    const decided = new DecidedHosts();
    try {
      mkdirSync(join(dir, 'profile'));
      mkdirSync(join(dir, 'downloads'));
      // One proxy for the browser's life: its connection bound is the session's, and up to 10k are itemized in evidence.
      proxy = await NetProxy.start({ grant: decided.gate(o.grant), resolver: o.resolver, limits: { maxConnections: 1_000_000, recorded: 10_000 } });
      const bridgeFile = join(dir, 'bridge.cjs');
      writeFileSync(bridgeFile, JAIL_BRIDGE_SOURCE);
      const script = join(dir, 'chromium.sh');
      const args = jailArgs({ sessionDir: dir, proxyDir: proxyDirOf(proxy), bridgeFile, hidden: [o.stateDir, ...o.hidden], node: process.execPath, chromium: o.chromium ?? CHROMIUM_PATH });
      writeFileSync(script, launcherScript(BWRAP_PATH, args));
      chmodSync(script, 0o700);
      // Loaded on the first launch, not with the runtime: playwright-core was about half of every
      // process's start-up (the CLI, `toolgate serve`, each runtime a test starts), browser or not.
      const { chromium } = await import('playwright-core');
      const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
        executablePath: script,
        headless: true,
        args: chromiumArgs(),
        acceptDownloads: true,
        downloadsPath: join(dir, 'downloads'),
        timeout: LAUNCH_TIMEOUT_MS,
        // The runtime owns the browser's life: Playwright must not add its own signal handlers.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        env: {},
        permissions: [],
        serviceWorkers: 'block',
      });
      const session = new BrowserSession(dir, context, proxy, decided);
      // A guard that fails refuses: the request is aborted, never let through unchecked.
      await context.route('**/*', (route) => session.#guard(route).catch(() => route.abort('blockedbyclient').catch(() => undefined)));
      return session;
    } catch (e) {
      await proxy?.close();
      rmSync(dir, { recursive: true, force: true });
      if (ToolgateError.isInstance(e)) throw e;
      throw new ToolgateError('execution_failed', `Chromium could not start: ${(e as Error).message.split('\n')[0] ?? ''}`, { reason: 'browser_launch_failed', exit_code: null }, { cause: e });
    }
  }

  get closed(): boolean {
    return this.#closed !== null;
  }

  /** What the proxy saw: every connection, allowed or refused. */
  network(): NetworkReport {
    return this.#proxy.report();
  }

  tabs(): { id: string; page: Page }[] {
    return [...this.#tabs].filter(([, p]) => !p.isClosed()).map(([id, page]) => ({ id, page }));
  }

  tab(id: string): Page | undefined {
    const p = this.#tabs.get(id);
    return p && !p.isClosed() ? p : undefined;
  }

  tabId(page: Page): string {
    return this.#tabIds.get(page) ?? this.#adopt(page);
  }

  async newTab(): Promise<{ id: string; page: Page }> {
    // The persistent context starts with one blank page: the first tab asked for is that one.
    const initial = this.#initial;
    this.#initial = null;
    const page = initial && !initial.isClosed() ? initial : await this.#context.newPage();
    return { id: this.tabId(page), page };
  }

  frameId(frame: Frame): string {
    let id = this.#frameIds.get(frame);
    if (id === undefined) {
      id = `f${this.#nextFrame++}`;
      this.#frameIds.set(frame, id);
    }
    return id;
  }

  /** How many times the frame has navigated (committed a new document) since the session saw it. */
  generation(frame: Frame): number {
    return this.#generations.get(frame) ?? 0;
  }

  #adopt(page: Page): string {
    const known = this.#tabIds.get(page);
    if (known !== undefined) return known;
    const id = `t${this.#nextTab++}`;
    this.#tabIds.set(page, id);
    this.#tabs.set(id, page);
    page.on('framenavigated', (f) => this.#generations.set(f, (this.#generations.get(f) ?? 0) + 1));
    page.on('close', () => this.#tabs.delete(id));
    return id;
  }

  /**
   * Every request the page makes passes here before the proxy: only GET/HEAD/OPTIONS unless an
   * approved submission's call is running, and a request to a host no decision allowed goes to
   * the running call's recheck (grant ∧ policy for that host; none running: refused). Redirect
   * hops are not routed (Playwright): the proxy refuses those to undecided hosts (decided-hosts.ts).
   */
  async #guard(route: Route): Promise<void> {
    const req = route.request();
    const method = req.method();
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && !this.writeWindow) {
      this.guardRefusals.push({ method, url: req.url().slice(0, 512), reason: 'method', navigation: req.isNavigationRequest() && isMainFrame(req) });
      return route.abort('blockedbyclient');
    }
    const url = req.url();
    if (/^https?:/i.test(url) && !this.decided.has(url)) {
      const check = this.originCheck;
      const decision = check ? await check(new URL(url)).catch(() => null) : null;
      if (decision?.outcome !== 'allow') {
        this.guardRefusals.push({ method, url: url.slice(0, 512), reason: 'origin', navigation: req.isNavigationRequest() && isMainFrame(req), decision });
        return route.abort('blockedbyclient');
      }
      this.decided.allow(url);
    }
    return route.continue();
  }

  /** Closes Chromium (the jail's pid namespace ends with it), the proxy, and removes the profile. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.snapshots.clear();
      await this.#context.close().catch(() => undefined);
      await this.#proxy.close();
      rmSync(this.dir, { recursive: true, force: true });
    })();
    return this.#closed;
  }
}

/** A popup's first navigation is issued before its frame exists (Playwright throws for frame()): a new main frame. */
function isMainFrame(req: Request): boolean {
  try {
    return req.frame().parentFrame() === null;
  } catch {
    return true;
  }
}

function proxyDirOf(proxy: NetProxy): string {
  return proxy.socketPath.slice(0, proxy.socketPath.lastIndexOf('/'));
}
