// Shared parts of the network tests: real grants (parsed, bound and compiled as the runtime does),
// real HTTP servers on loopback addresses the tests pick, and the typed refusal they expect.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bindGrant, CompiledGrant, parseGrantFile } from '../../../src/policy/index.js';
import { ToolgateError, type TaskId } from '../../../src/protocol/index.js';
import type { DestinationRefusal } from '../../../src/resources/index.js';

const subject = { tenant: 'acme', principal: 'agent', task_id: 'task-net' as TaskId, attempt_id: null, cancellation_epoch: 0 };

/** A grant file value through the real parser, binder and compiler. */
export function grantOf(spec: unknown): CompiledGrant {
  return new CompiledGrant(bindGrant(parseGrantFile(spec), subject));
}

/** Asserts a promise rejects with destination_refused and the given data fields. */
export async function assertRefused(work: Promise<unknown>, expected: Partial<DestinationRefusal>): Promise<DestinationRefusal> {
  let data: DestinationRefusal | undefined;
  await assert.rejects(work, (e: unknown) => {
    assert.ok(ToolgateError.isInstance(e), `not a ToolgateError: ${String(e)}`);
    assert.equal(e.code, 'destination_refused', e.message);
    data = e.data as DestinationRefusal;
    for (const [k, v] of Object.entries(expected)) assert.deepEqual(data[k as keyof DestinationRefusal], v, `${k} of ${JSON.stringify(data)}`);
    return true;
  });
  assert.ok(data);
  return data;
}

/** An HTTP server on one loopback address that counts what it is sent and answers with `reply`. */
export class RecordingServer {
  readonly requests: { readonly method: string; readonly url: string; readonly host: string | undefined }[] = [];
  connections = 0;
  readonly #server: http.Server;

  private constructor(server: http.Server) {
    this.#server = server;
    server.on('connection', () => this.connections++);
  }

  static async start(address: string, port = 0, reply?: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<RecordingServer> {
    const server = http.createServer();
    const recording = new RecordingServer(server);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      recording.requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host });
      if (reply) reply(req, res);
      else res.end(`served by ${address}`);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return recording;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Two servers on one port at two loopback addresses (a few ports tried: one may be taken at the second address). */
export async function serverPair(first: string, second: string): Promise<[RecordingServer, RecordingServer]> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const a = await RecordingServer.start(first);
    try {
      return [a, await RecordingServer.start(second, a.port)];
    } catch {
      await a.close();
    }
  }
  throw new Error(`no common free port on ${first} and ${second}`);
}

/** GET through node:http with the given options; the body and which status came back. */
export function get(options: http.RequestOptions): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ ...options, method: 'GET', timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}
