// A real git daemon on a loopback address the test chooses: a node TCP server on an ephemeral
// port (so no port is guessed) hands each connection to `git daemon --inetd`, the daemon's own
// per-connection mode. Standing between the two, it counts connections and pushes, and can play
// the failures a push meets: drop the connection after the pack arrived (the daemon updates the
// ref, the client never hears), swallow the pack (nothing lands), or hold the answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Behaviour = 'pass' | 'drop_after_pack' | 'swallow_pack' | 'hold';

// Where git keeps its helper programs (Debian: /usr/lib/git-core); git-daemon ships with git there.
const DAEMON = join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-daemon');
const PACK = Buffer.from('PACK');

export class GitDaemonServer {
  behaviour: Behaviour = 'pass';
  connections = 0;
  /** Connections on which the client sent a pack (a push that reached the daemon). */
  packsReceived = 0;
  /** Packs forwarded to the daemon. */
  packsDelivered = 0;
  readonly root: string;
  readonly #server: net.Server;
  readonly #daemons = new Set<ChildProcess>();
  readonly #sockets = new Set<net.Socket>();
  readonly #held: (() => void)[] = [];
  #packWaiters: (() => void)[] = [];

  private constructor(root: string, readonly address: string) {
    this.root = root;
    this.#server = net.createServer((socket) => this.#serve(socket));
  }

  static async start(address: string): Promise<GitDaemonServer> {
    const root = mkdtempSync(join(tmpdir(), 'tg-git-daemon-'));
    const s = new GitDaemonServer(root, address);
    await new Promise<void>((resolve, reject) => {
      s.#server.once('error', reject);
      s.#server.listen(0, address, () => resolve());
    });
    return s;
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** A bare repository `<name>.git` at the root (receive-pack allowed, non-fast-forwards refused like a hosted branch). */
  createRepository(name: string): string {
    const dir = join(this.root, `${name}.git`);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
    execFileSync('git', ['-C', dir, 'config', 'receive.denyNonFastForwards', 'true']);
    // Every move of every ref in the reflog: the effect count a test asserts (one push, one entry).
    execFileSync('git', ['-C', dir, 'config', 'core.logAllRefUpdates', 'always']);
    return dir;
  }

  /** The ref's value in a repository here, read directly (not through the daemon), or null. */
  refOf(name: string, ref: string): string | null {
    try {
      return execFileSync('git', ['-C', join(this.root, `${name}.git`), 'rev-parse', '--verify', '--quiet', ref], { encoding: 'utf8' }).trim() || null;
    } catch {
      return null;
    }
  }

  /** How many times the ref moved (its reflog), 0 when it never existed. */
  refMoves(name: string, ref: string): number {
    try {
      const out = execFileSync('git', ['-C', join(this.root, `${name}.git`), 'reflog', 'show', '--format=%H', ref, '--'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      return out.split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  }

  /** Resolves when the next pack has reached this server. */
  nextPack(): Promise<void> {
    return new Promise((r) => this.#packWaiters.push(r));
  }

  /** Lets held answers go (behaviour `hold`). */
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }

  #serve(client: net.Socket): void {
    this.connections++;
    this.#sockets.add(client);
    const behaviour = this.behaviour;
    const daemon = spawn(DAEMON, ['--inetd', '--export-all', '--enable=receive-pack', `--base-path=${this.root}`, '--informative-errors'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
    this.#daemons.add(daemon);
    let packSeen = false;
    const toClient: Buffer[] = [];
    let holding = false;
    client.on('error', () => {});
    daemon.stdin.on('error', () => {});
    daemon.once('exit', () => this.#daemons.delete(daemon));
    client.on('data', (chunk: Buffer) => {
      if (!packSeen && chunk.includes(PACK)) {
        packSeen = true;
        this.packsReceived++;
        for (const w of this.#packWaiters.splice(0)) w();
        if (behaviour === 'swallow_pack') {
          // Nothing of the pack reaches the daemon: it ends without updating anything.
          daemon.stdin.end();
          client.destroy();
          return;
        }
        this.packsDelivered++;
        if (behaviour === 'hold') holding = true;
      }
      if (packSeen && behaviour === 'swallow_pack') return;
      daemon.stdin.write(chunk);
    });
    client.once('end', () => daemon.stdin.end());
    client.once('close', () => {
      this.#sockets.delete(client);
      if (!daemon.stdin.destroyed) daemon.stdin.end();
    });
    daemon.stdout.on('data', (chunk: Buffer) => {
      if (packSeen && behaviour === 'drop_after_pack') return; // the report never reaches the client
      if (holding) toClient.push(chunk);
      else if (!client.destroyed) client.write(chunk);
    });
    daemon.stdout.once('end', () => {
      if (packSeen && behaviour === 'drop_after_pack') {
        client.destroy(); // after the daemon finished (the ref moved), before any answer
        return;
      }
      if (holding) {
        this.#held.push(() => {
          if (client.destroyed) return;
          for (const c of toClient) client.write(c);
          client.end();
        });
        return;
      }
      client.end();
    });
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    for (const d of this.#daemons) d.kill('SIGKILL');
    await Promise.all([...this.#daemons].map((d) => new Promise((r) => (d.exitCode !== null || d.signalCode !== null ? r(null) : d.once('exit', r)))));
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.root, { recursive: true, force: true });
  }
}
