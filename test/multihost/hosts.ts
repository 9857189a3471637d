// Starts Toolgate hosts as child processes (host-child.ts) and talks to them over IPC. Every
// request has a bound; every host is killed by `stopAll()` (tests call it in `after`).
import { fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Receipt } from '../../src/protocol/index.js';
import type { HostConfig, HostReply, HostRequest } from './protocol.js';

const CHILD = fileURLToPath(new URL('./host-child.ts', import.meta.url));
/** Generous: two cores shared with other test runs. */
export const REQUEST_TIMEOUT_MS = 120_000;

export type Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

export class Host {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #waiting = new Map<number, (a: Answer) => void>();
  readonly #events: { kind: string }[] = [];
  readonly #eventWaiters: (() => void)[] = [];
  #next = 0;
  #stderr = '';
  readonly #stderrEnded: Promise<unknown>;

  constructor(name: string, config: HostConfig) {
    this.name = name;
    this.child = fork(CHILD, [JSON.stringify(config)], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, TOOLGATE_HOST_ID: name },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    // Its stderr still reaches ours, and its tail goes into the error of a host that exits early.
    this.child.stderr?.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-4_000);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.#stderrEnded = new Promise((resolve) => this.child.stderr?.once('end', resolve));
    void this.exited.then(() => {
      for (const [id, done] of this.#waiting) {
        this.#waiting.delete(id);
        done({ ok: false, error: { code: 'host_exited', message: `${name} exited` } });
      }
      for (const w of this.#eventWaiters.splice(0)) w();
    });
    this.child.on('message', (m: HostReply | { kind: 'at-commit' }) => {
      if (m.kind === 'reply') {
        const done = this.#waiting.get(m.id);
        this.#waiting.delete(m.id);
        done?.(m.ok ? { ok: true, value: m.value } : { ok: false, error: m.error });
        return;
      }
      this.#events.push(m);
      for (const w of this.#eventWaiters.splice(0)) w();
    });
  }

  /** Resolves once the host said `kind` (ready, at-commit); rejects past the bound or if it exits first. */
  async event(kind: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = this.#events.findIndex((e) => e.kind === kind);
      if (i >= 0) {
        this.#events.splice(i, 1);
        return;
      }
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        // The tail of its stderr may still be in the pipe; a grandchild holding it open is not waited for.
        await Promise.race([this.#stderrEnded, new Promise((resolve) => setTimeout(resolve, 2_000))]);
        throw new Error(`${this.name} exited before '${kind}' (${this.child.exitCode ?? this.child.signalCode}); its stderr ended with:\n${this.#stderr}`);
      }
      if (Date.now() > until) throw new Error(`${this.name}: no '${kind}' within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1_000);
        this.#eventWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  request(req: HostRequest, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
    const id = this.#next++;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#waiting.delete(id);
        resolve({ ok: false, error: { code: 'test_timeout', message: `${this.name}: no answer to ${req.op} within ${timeoutMs} ms` } });
      }, timeoutMs);
      this.#waiting.set(id, (a) => {
        clearTimeout(t);
        resolve(a);
      });
      if (!this.child.connected) {
        this.#waiting.delete(id);
        clearTimeout(t);
        resolve({ ok: false, error: { code: 'host_exited', message: `${this.name} is not running` } });
        return;
      }
      this.child.send({ id, req });
    });
  }

  /** A call's receipt; throws with the error code when the host answered with an error (e.g. store_unavailable). */
  async call(envelope: Record<string, unknown>, stop?: Extract<HostRequest, { op: 'call' }>['stop']): Promise<Receipt> {
    const a = await this.request({ op: 'call', envelope, ...(stop ? { stop } : {}) });
    if (!a.ok) throw Object.assign(new Error(`${this.name}: ${a.error.code}: ${a.error.message}`), { code: a.error.code });
    return a.value as Receipt;
  }

  async value<T>(req: HostRequest): Promise<T> {
    const a = await this.request(req);
    if (!a.ok) throw Object.assign(new Error(`${this.name}: ${a.error.code}: ${a.error.message}`), { code: a.error.code });
    return a.value as T;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Hosts and folders of one test: each host its own workspace copy and state dir; a shared ledger and artifacts folder. */
export class Fleet {
  readonly base = mkdtempSync(join(tmpdir(), 'tg-hosts-'));
  readonly ledger = join(this.base, 'ledger');
  readonly artifacts = join(this.base, 'artifacts');
  readonly #template = join(this.base, 'template');
  readonly #hosts: Host[] = [];

  constructor(files: Readonly<Record<string, string>> = { 'README.md': '# project\n', 'src/a.ts': 'export const a = 1;\n' }) {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(this.#template, path, '..'), { recursive: true });
      writeFileSync(join(this.#template, path), text);
    }
  }

  /** Starts a host named `name` (its TOOLGATE_HOST_ID) and waits until it is ready. */
  async start(name: string, config: Omit<HostConfig, 'workspace' | 'stateDir' | 'ledger'>): Promise<Host> {
    const workspace = join(this.base, `ws-${name}`);
    cpSync(this.#template, workspace, { recursive: true });
    const host = new Host(name, { ...config, workspace, stateDir: join(this.base, `state-${name}`), ledger: this.ledger, artifactsFolder: this.artifacts });
    this.#hosts.push(host);
    await host.event('ready');
    return host;
  }

  workspaceOf(name: string): string {
    return join(this.base, `ws-${name}`);
  }

  /** Kills every host still running and removes the folders. */
  async stopAll(): Promise<void> {
    for (const h of this.#hosts) h.kill();
    await Promise.all(this.#hosts.map((h) => h.exited));
    rmSync(this.base, { recursive: true, force: true });
  }
}
