// Network namespaces a test creates and removes: `ip netns add`, a veth pair with a /30 the test
// picks (10.251.x.y, checked against every address the host has), and real servers run inside
// with `ip netns exec`. Nothing here sends a byte to an address the test did not create. Every
// loop is bounded; `remove()` kills the servers and deletes the namespace (its veth end takes the
// host end with it), and a namespace left by a test process that died is swept on the next create.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const IP = existsSync('/usr/sbin/ip') ? '/usr/sbin/ip' : '/sbin/ip';
const SERVER = join(import.meta.dirname, 'netns-server.mjs');

function ip(...args: string[]): string {
  const r = spawnSync(IP, args, { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr || r.error?.message || `exit ${r.status}`}`);
  return r.stdout;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Namespaces named `tg-<pid>-…` whose test process is gone: a crashed run's leftovers. */
function sweepAbandoned(): void {
  for (const line of ip('netns', 'list').split('\n').slice(0, 1000)) {
    const m = /^(tg-(\d+)-[0-9a-f]+)\b/.exec(line);
    if (m && !alive(Number(m[2]))) spawnSync(IP, ['netns', 'del', m[1] as string], { timeout: 10_000 });
  }
}

/** A /30 in 10.251.0.0/16 that no interface of the host uses. */
function freeSubnet(): { host: string; ns: string; subnet: string } {
  const used = ip('-o', '-4', 'addr', 'show');
  for (let attempt = 0; attempt < 64; attempt++) {
    const b = randomBytes(2);
    const third = b[0] as number;
    const fourth = ((b[1] as number) & 0xfc) % 252;
    const prefix = `10.251.${third}.`;
    if (used.includes(`${prefix}${fourth + 1}/`) || used.includes(`${prefix}${fourth + 2}/`)) continue;
    return { host: `${prefix}${fourth + 1}`, ns: `${prefix}${fourth + 2}`, subnet: `${prefix}${fourth}/30` };
  }
  throw new Error('no free /30 in 10.251.0.0/16 after 64 tries');
}

export interface ServerStats {
  /** Connections the server accepted since it started. */
  readonly connections: number;
  /** Connections open right now. */
  readonly open: number;
  /** Request lines, in order. */
  readonly requests: readonly string[];
}

/** A node HTTP server inside the namespace (netns-server.mjs), on the namespace's address. */
export class NsServer {
  readonly port: number;
  readonly #child: ChildProcess;
  #seq = 0;

  constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.port = port;
  }

  /** What the server saw (asked over its IPC channel; bounded by a timeout). */
  stats(): Promise<ServerStats> {
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#child.off('message', onMessage);
        reject(new Error('the namespace server did not answer within 10 s'));
      }, 10_000);
      const onMessage = (m: { id?: number; stats?: ServerStats }): void => {
        if (m.id !== id || !m.stats) return;
        clearTimeout(timer);
        this.#child.off('message', onMessage);
        resolve(m.stats);
      };
      this.#child.on('message', onMessage);
      this.#child.send({ id, op: 'stats' });
    });
  }

  kill(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.kill('SIGKILL');
    return exited;
  }
}

export interface NetNs {
  readonly name: string;
  /** The host's end of the veth pair. */
  readonly hostAddress: string;
  /** The namespace's end: where its servers listen. */
  readonly nsAddress: string;
  /** The /30 of the pair, for a grant's `private_addresses`. */
  readonly subnet: string;
  /** Starts netns-server.mjs inside; `files` maps a request path to a file it serves. */
  serve(files?: Readonly<Record<string, string>>): Promise<NsServer>;
  /** Kills the servers, deletes the namespace and the veth pair. Idempotent. */
  remove(): Promise<void>;
}

export function createNetNs(): NetNs {
  sweepAbandoned();
  const tag = randomBytes(3).toString('hex');
  const name = `tg-${process.pid}-${tag}`;
  const vHost = `tgh${tag}`;
  const vNs = `tgn${tag}`;
  const { host, ns, subnet } = freeSubnet();
  const servers: NsServer[] = [];
  let removed = false;
  const remove = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await Promise.all(servers.map((s) => s.kill()));
    spawnSync(IP, ['netns', 'del', name], { timeout: 10_000 });
    // Deleting the namespace destroys its veth end, and with it the pair; this covers a failed setup.
    spawnSync(IP, ['link', 'del', vHost], { timeout: 10_000, stdio: 'ignore' });
  };
  try {
    ip('netns', 'add', name);
    ip('link', 'add', vHost, 'type', 'veth', 'peer', 'name', vNs);
    ip('link', 'set', vNs, 'netns', name);
    ip('addr', 'add', `${host}/30`, 'dev', vHost);
    ip('link', 'set', vHost, 'up');
    ip('-n', name, 'addr', 'add', `${ns}/30`, 'dev', vNs);
    ip('-n', name, 'link', 'set', vNs, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (e) {
    void remove();
    throw e;
  }
  return {
    name,
    hostAddress: host,
    nsAddress: ns,
    subnet,
    remove,
    async serve(files = {}) {
      const child = spawn(IP, ['netns', 'exec', name, process.execPath, SERVER, ns, JSON.stringify(files)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the namespace server did not start within 10 s')), 10_000);
        child.once('message', (m: { port?: number }) => {
          clearTimeout(timer);
          if (typeof m.port === 'number') resolve(m.port);
          else reject(new Error('the namespace server sent no port'));
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the namespace server exited with ${code}`));
        });
      });
      const server = new NsServer(child, port);
      servers.push(server);
      return server;
    },
  };
}
