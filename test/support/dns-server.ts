// A DNS responder on loopback for tests, answering what each test chooses (A and AAAA only).
// Hand-written rather than a package (dns2): a test needs per-query scripted answers (the nth
// query for a name answers differently: rebinding) and a count of the queries asked, and the
// packet subset (one question; A/AAAA answers or NXDOMAIN) is this page. Node's own resolver
// (c-ares, through resources/net dnsServerResolver) parses every answer it sends, in every test.
import { createSocket, type Socket } from 'node:dgram';
import ipaddr from 'ipaddr.js';

export type QueryType = 'A' | 'AAAA';

export interface Query {
  readonly name: string;
  readonly type: QueryType;
  /** How many queries for this name and type came before this one. */
  readonly nth: number;
}

/** Addresses to answer (of the asked type), or `nxdomain`. */
export type Answer = readonly string[] | 'nxdomain';

const TYPES: Readonly<Record<number, QueryType>> = { 1: 'A', 28: 'AAAA' };

function readName(msg: Buffer, start: number): { name: string; end: number } | null {
  const labels: string[] = [];
  let at = start;
  for (let guard = 0; guard < 128; guard++) {
    const len = msg[at];
    if (len === undefined || len > 63) return null; // no compression in a question we accept
    if (len === 0) return { name: labels.join('.').toLowerCase(), end: at + 1 };
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  return null;
}

function response(query: Buffer, questionEnd: number, qtype: number, answer: Answer): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  const rd = (query[2] ?? 0) & 0x01;
  header[2] = 0x80 | 0x04 | rd; // QR, AA, RD copied
  header[3] = 0x80 | (answer === 'nxdomain' ? 3 : 0); // RA, RCODE
  header.writeUInt16BE(1, 4);
  const addresses = answer === 'nxdomain' ? [] : answer;
  header.writeUInt16BE(addresses.length, 6);
  const question = query.subarray(12, questionEnd);
  const records = addresses.map((text) => {
    const rdata = Buffer.from(ipaddr.parse(text).toByteArray());
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // pointer to the question's name
    rr.writeUInt16BE(qtype, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(0, 6); // TTL 0: nothing may cache it
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...records]);
}

export class TestDnsServer {
  readonly queries: Query[] = [];
  readonly #socket: Socket;
  readonly #answer: (q: Query) => Answer;

  private constructor(socket: Socket, answer: (q: Query) => Answer) {
    this.#socket = socket;
    this.#answer = answer;
    socket.on('message', (msg, peer) => this.#reply(msg, peer.port, peer.address));
  }

  /** Listens on `host` (a loopback address), an ephemeral port. `answer` is asked once per query. */
  static async start(answer: (q: Query) => Answer, host = '127.0.0.1'): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return new TestDnsServer(socket, answer);
  }

  /** `host:port`, as dns.Resolver#setServers takes it. */
  get server(): string {
    const a = this.#socket.address();
    return `${a.address}:${a.port}`;
  }

  /** Queries asked for one name (both types). */
  queriesFor(name: string): number {
    return this.queries.filter((q) => q.name === name).length;
  }

  #reply(msg: Buffer, port: number, address: string): void {
    if (msg.length < 12 || msg.readUInt16BE(4) !== 1) return;
    const parsed = readName(msg, 12);
    if (parsed === null || parsed.end + 4 > msg.length) return;
    const qtype = msg.readUInt16BE(parsed.end);
    const type = TYPES[qtype];
    let answer: Answer = [];
    if (type !== undefined) {
      const nth = this.queries.filter((q) => q.name === parsed.name && q.type === type).length;
      const query = { name: parsed.name, type, nth };
      this.queries.push(query);
      answer = this.#answer(query);
    }
    this.#socket.send(response(msg, parsed.end + 4, qtype, answer), port, address);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#socket.close(() => resolve()));
  }
}

/** An answerer from a table: name → { A, AAAA }; names not in it are NXDOMAIN. */
export function answersFrom(table: Readonly<Record<string, { readonly A?: readonly string[]; readonly AAAA?: readonly string[] }>>): (q: Query) => Answer {
  return (q) => {
    const entry = table[q.name];
    if (entry === undefined) return 'nxdomain';
    return (q.type === 'A' ? entry.A : entry.AAAA) ?? [];
  };
}
