// A runtime whose shell.exec reaches a real server in a network namespace the test creates,
// through the allowlist proxy: the grant names `registry.test` (and a few refused names), the
// runtime resolves through a test DNS server on the host's end of the veth pair, and the policy
// lets Host resources through without approval.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PROTOCOL_VERSION, type Receipt } from '../../../src/protocol/index.js';
import { dnsServerResolver } from '../../../src/resources/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import type { ShellExecResult } from '../../../src/tools/shell-exec/schema.js';
import { TestDnsServer, answersFrom } from '../../support/dns-server.js';
import { tempDirs } from '../../support/fixtures.js';
import { createNetNs, type NetNs, type NsServer } from '../../support/netns.js';

export const PERMIT_HOSTS = [
  'permit (principal, action, resource is Toolgate::Host);',
  'permit (principal, action, resource is Toolgate::Path) when { resource.class != "secret" };',
  'permit (principal, action, resource is Toolgate::Tool);',
].join('\n');

export interface NetRig {
  readonly ns: NetNs;
  readonly server: NsServer;
  readonly dns: TestDnsServer;
  readonly rt: Runtime;
  readonly workspace: string;
  exec(script: string, extra?: Record<string, unknown>, signal?: AbortSignal): Promise<Receipt>;
  done(): Promise<void>;
}

/** Proxy directories of this process's runs left in the temporary directory (other test files run in parallel, in their own processes). */
export function proxyDirs(): string[] {
  return readdirSync(tmpdir()).filter((n) => n.startsWith(`toolgate-net-${process.pid}-`));
}

export async function netRig(o: { files?: (server: () => number) => Record<string, string>; grant?: Record<string, unknown> } = {}): Promise<NetRig> {
  const ns = createNetNs();
  const cleanups: (() => Promise<void> | void)[] = [() => ns.remove()];
  const undo = async (): Promise<void> => {
    for (const c of cleanups.reverse()) await c();
  };
  try {
    let port = 0;
    const server = await ns.serve(o.files?.(() => port) ?? {});
    port = server.port;
    const dns = await TestDnsServer.start(
      answersFrom({
        'registry.test': { A: [ns.nsAddress] },
        'outside.test': { A: [ns.nsAddress] },
        'meta.test': { A: ['169.254.169.254'] },
        'private.test': { A: [ns.nsAddress, '10.0.0.1'] },
        'mapped.test': { AAAA: ['::ffff:127.0.0.1'] },
      }),
      ns.hostAddress,
    );
    cleanups.push(() => dns.close());
    const dirs = tempDirs('tg-netproxy');
    cleanups.push(() => dirs.cleanup());
    const rt = await createRuntime({
      workspace: dirs.workspace,
      stateDir: dirs.state,
      resolver: dnsServerResolver({ servers: [dns.server], timeoutMs: 1000, tries: 1 }),
      grant: (o.grant ?? {
        tools: ['*'],
        effects: ['read', 'write', 'execute', 'network'],
        read: ['**'],
        write: ['**'],
        hosts: ['registry.test', 'meta.test', 'private.test', 'mapped.test', '169.254.169.254', '*.internal'],
        private_addresses: [ns.subnet],
      }) as never,
      policies: [{ name: 'hosts.cedar', text: PERMIT_HOSTS }],
    });
    cleanups.push(() => rt.close());
    let seq = 0;
    return {
      ns,
      server,
      dns,
      rt,
      workspace: dirs.workspace,
      exec: (script, extra = {}, signal) =>
        rt.call(
          { protocol_version: PROTOCOL_VERSION, task_id: 'task-net', tool: 'shell.exec', arguments: { shell: 'bash', script, network: 'allowlist', ...extra }, idempotency_key: `net-${seq++}` },
          signal ? { signal } : {},
        ),
      done: undo,
    };
  } catch (e) {
    await undo();
    throw e;
  }
}

export const resultOf = (r: Receipt): ShellExecResult => {
  if (r.result === null) throw new Error(`no result: ${JSON.stringify(r.error)}`);
  return r.result as ShellExecResult;
};

/** Polls `check` every 50 ms for at most `ms`. */
export async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  for (let i = 0; i < 10_000; i++) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
