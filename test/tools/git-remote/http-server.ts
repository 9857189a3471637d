// git's smart HTTP on a loopback address: a node http server that runs the real
// `git http-backend` (CGI) per request over one directory of bare repositories. It records the
// Host header and the Authorization each request carried, and counts pushes (receive-pack POSTs).
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly host: string | undefined;
  readonly authorization: string | undefined;
}

export class GitHttpServer {
  readonly requests: SeenRequest[] = [];
  /** A push runs to its end at the backend (the ref moves), then the connection is cut before any byte of the answer. */
  dropPushAnswer = false;
  readonly root: string;
  readonly #server: http.Server;

  private constructor(readonly address: string) {
    this.root = mkdtempSync(join(tmpdir(), 'tg-git-http-'));
    this.#server = http.createServer((req, res) => this.#serve(req, res));
  }

  static async start(address: string): Promise<GitHttpServer> {
    const s = new GitHttpServer(address);
    await new Promise<void>((resolve, reject) => {
      s.#server.once('error', reject);
      s.#server.listen(0, address, () => resolve());
    });
    return s;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get pushes(): number {
    return this.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/git-receive-pack')).length;
  }

  createRepository(name: string): void {
    const dir = join(this.root, `${name}.git`);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
    execFileSync('git', ['-C', dir, 'config', 'http.receivepack', 'true']);
    // Every move of every ref in the reflog: the effect count a test asserts (one push, one entry).
    execFileSync('git', ['-C', dir, 'config', 'core.logAllRefUpdates', 'always']);
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

  refOf(name: string, ref: string): string | null {
    try {
      return execFileSync('git', ['-C', join(this.root, `${name}.git`), 'rev-parse', '--verify', '--quiet', ref], { encoding: 'utf8' }).trim() || null;
    } catch {
      return null;
    }
  }

  #serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host, authorization: req.headers.authorization });
    const u = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(u.pathname),
        QUERY_STRING: u.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: 'tester',
        REMOTE_ADDR: req.socket.remoteAddress ?? '',
      },
    });
    cgi.stdin.on('error', () => {});
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    if (this.dropPushAnswer && req.method === 'POST' && u.pathname.endsWith('/git-receive-pack')) {
      cgi.stdout.resume();
      cgi.once('exit', () => req.socket.destroy());
      return;
    }
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      started = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.once('end', () => res.end());
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.root, { recursive: true, force: true });
  }
}
