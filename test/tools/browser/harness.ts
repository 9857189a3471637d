// A runtime whose grant names 127.0.0.1 (loopback is non-public: hosts and private_addresses
// must both name it), pages served by the test over loopback, and a count of the Chromium
// processes whose command line names a directory (a session's own profile, or a state dir).
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../../src/runtime/index.js';
import { tempDirs } from '../../support/fixtures.js';

export const HOST = '127.0.0.1';
// The last rule is the default policy's `default.manifest-approval`: a tool that says a call needs approval (a form submission) gets it asked.
export const POLICY = `permit (principal, action, resource is Toolgate::Host);
permit (principal, action, resource is Toolgate::Tool);
permit (principal, action, resource is Toolgate::Path);
@approval("required")
permit (principal, action, resource) when { context has approval_required && context.approval_required };`;

export function grant(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { tools: ['*'], effects: ['read', 'network', 'send'], hosts: [HOST], private_addresses: [HOST], read: ['**'], ...extra };
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export class Site {
  readonly requests: { method: string; url: string; body: string }[] = [];
  private constructor(
    readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(routes: Record<string, Handler>, address = HOST): Promise<Site> {
    const holder: { site?: Site } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('latin1');
        holder.site?.requests.push({ method: req.method ?? '', url: req.url ?? '', body });
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        const h = routes[path];
        if (h) h(req, res, body);
        else res.writeHead(404).end('not here');
      });
    });
    await new Promise<void>((r) => server.listen(0, address, r));
    const site = new Site(server, `http://${address}:${(server.address() as AddressInfo).port}`);
    holder.site = site;
    return site;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export function html(body: string, head = ''): Handler {
  return (_q, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`);
}

export interface BrowserRuntime {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly state: string;
  done(): Promise<void>;
}

export async function browserRuntime(extra: Partial<RuntimeOptions> = {}): Promise<BrowserRuntime> {
  const dirs = tempDirs('tg-browser');
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, grant: grant() as never, policies: [{ name: 'browser.cedar', text: POLICY }], ...extra });
  return {
    rt,
    workspace: dirs.workspace,
    state: dirs.state,
    done: async () => {
      await rt.close();
      dirs.cleanup();
    },
  };
}

/** Processes (Chromium and its jail) whose command line mentions `marker`. */
export function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes(marker) && cmd.includes('chromium')) pids.push(Number(entry));
  }
  return pids;
}

/** Polls until `pred` holds (bounded generously: a loaded machine is slow, never a failure by itself). */
export async function until(pred: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return pred();
}
