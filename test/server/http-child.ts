// The built `toolgate serve --http 0` as a child process (optionally under a lower open-file limit
// via prlimit), and a bounded flood of silent loopback sockets against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

export interface ServeChild {
  readonly url: string;
  /** The directory it serves. */
  readonly workspace: string;
  readonly port: number;
  readonly pid: number;
  stderr(): string;
  /** Descriptors the server process holds now. */
  openFds(): number;
  /** SIGTERM, then SIGKILL if it has not ended in 10 s; removes the temp dirs. */
  stop(): Promise<number | null>;
}

export async function startServe(extraArgs: readonly string[] = [], opts: { nofile?: number } = {}): Promise<ServeChild> {
  const d = tempDirs('tg-http-child');
  writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
  const args = [BIN, 'serve', '--http', '0', '--workspace', d.workspace, '--state-dir', d.state, ...extraArgs];
  // prlimit execs the command: the child's pid is the server's.
  const child: ChildProcess =
    opts.nofile === undefined
      ? spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn('prlimit', [`--nofile=${opts.nofile}:${opts.nofile}`, process.execPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
      d.cleanup();
    }
  };
  // The limits line comes last of the start-up lines.
  if (!(await waitFor(() => /toolgate: limits: .*\n/.test(stderr) || child.exitCode !== null, 30_000))) {
    await stop();
    throw new Error(`server did not start: ${stderr}`);
  }
  const url = /serving MCP on (\S+)/.exec(stderr)?.[1];
  if (url === undefined) {
    await stop();
    throw new Error(`server did not start: ${stderr}`);
  }
  const pid = child.pid ?? 0;
  return {
    url,
    workspace: d.workspace,
    port: Number(new URL(url).port),
    pid,
    stderr: () => stderr,
    openFds: () => readdirSync(`/proc/${pid}/fd`).length,
    stop,
  };
}

/** A 2025-era SDK client over real HTTP (the one that keeps a session). */
export async function legacyClient(url: string): Promise<Client> {
  const client = new Client({ name: 'toolgate-http-limits-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** This process's own open-file limit (the flood's sockets count against it too). */
export function ownOpenFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1] ?? 1024);
}

/**
 * Connections the kernel's own SYN-flood and accept-queue defences may have kept from the
 * server: a SYN answered with a cookie, or an ACK dropped by a full accept queue, leaves the
 * client believing it is connected while the server process never sees the socket (so it can
 * never close it). Summed from /proc/net/netstat, whose TcpExt line this netns owns.
 */
export function kernelListenDrops(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = (lines[0] ?? '').split(/\s+/);
  const values = (lines[1] ?? '').split(/\s+/);
  const of = (name: string): number => Number(values[names.indexOf(name)] ?? 0);
  return of('SyncookiesSent') + of('ListenOverflows') + of('ListenDrops');
}

export interface Flood {
  readonly sockets: readonly Socket[];
  /** Flood sockets the server has closed so far. */
  closedByServer(): number;
  /** Destroys every flood socket and waits (bounded) until all have closed. */
  close(): Promise<void>;
}

/**
 * Opens `count` loopback connections that never send a byte, in batches so the loop stays
 * bounded and the event loop keeps turning; resolves once every connect has settled.
 */
export async function openSilentSockets(port: number, count: number, onBatch: () => void = () => {}): Promise<Flood> {
  const sockets: Socket[] = [];
  let closed = 0;
  for (let i = 0; i < count; i++) {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.once('close', () => closed++);
    sockets.push(s);
    if (i % 100 === 99) {
      // Let this batch's handshakes settle before the next, so the flood does not simply
      // overflow the kernel's SYN queue (the server could never close what it never received).
      await waitFor(() => sockets.every((s) => !s.connecting), 30_000);
      onBatch();
    }
  }
  await waitFor(() => sockets.every((s) => !s.connecting), 30_000);
  return {
    sockets,
    closedByServer: () => closed,
    close: async () => {
      for (const s of sockets) s.destroy();
      await waitFor(() => sockets.every((s) => s.closed), 10_000);
    },
  };
}
