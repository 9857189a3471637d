// A network cut between one host and PostgreSQL: a unix-socket relay in front of the server's
// socket. `cut()` refuses new connections and resets every open one (as a partition or a
// firewall would); `restore()` accepts again. The server and the other hosts are untouched.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOCKET = '.s.PGSQL.5432';

export class PgProxy {
  readonly #target: string;
  readonly dir = mkdtempSync(join(tmpdir(), 'tg-pgproxy-'));
  readonly #open = new Set<Socket>();
  #server: Server | null = null;

  /** `url`: the server's postgres:// URL with its socket folder in `?host=`. */
  constructor(url: string) {
    const host = new URL(url).searchParams.get('host');
    if (!host) throw new Error(`not a unix-socket URL: ${url}`);
    this.#target = join(host, SOCKET);
  }

  /** The same database, reached through this relay. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.searchParams.set('host', this.dir);
    return u.toString();
  }

  restore(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.#target);
      for (const s of [client, upstream]) {
        this.#open.add(s);
        s.once('close', () => this.#open.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(join(this.dir, SOCKET), () => resolve());
    });
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const s of this.#open) s.destroy(); // a unix socket has no RST: the peer sees the connection end
    await closed;
  }

  async close(): Promise<void> {
    await this.cut();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
