// A small OTLP/HTTP receiver on loopback: takes what an exporter POSTs to /v1/traces (OTLP JSON,
// as @opentelemetry/exporter-trace-otlp-http sends it), keeps each raw body (a canary looks for
// secrets in the bytes themselves) and decodes the spans.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
interface KeyValue {
  readonly key: string;
  readonly value: AnyValue;
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: string | number;
  readonly endTimeUnixNano: string | number;
  readonly attributes?: KeyValue[];
  readonly events?: { name: string; attributes?: KeyValue[] }[];
  readonly status?: { code?: number; message?: string };
}
interface TracesRequest {
  readonly resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

export type Attr = string | number | boolean | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: number;
  readonly start: bigint;
  readonly end: bigint;
  readonly attributes: Readonly<Record<string, Attr>>;
  readonly events: readonly { name: string; attributes: Readonly<Record<string, Attr>> }[];
  readonly status: { code: number; message: string };
  readonly resource: Readonly<Record<string, Attr>>;
  readonly scope: string;
}

function valueOf(v: AnyValue): Attr {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return null;
}

function attrs(list: readonly KeyValue[] | undefined): Record<string, Attr> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export class OtlpReceiver {
  readonly bodies: string[] = [];
  readonly spans: ReceivedSpan[] = [];
  readonly headers: http.IncomingHttpHeaders[] = [];
  readonly #server: http.Server;
  readonly #sockets = new Set<Socket>();

  private constructor(server: http.Server) {
    this.#server = server;
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.once('close', () => this.#sockets.delete(s));
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        this.bodies.push(text);
        this.headers.push(req.headers);
        this.#decode(JSON.parse(text) as TracesRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const r = new OtlpReceiver(http.createServer());
    await new Promise<void>((resolve, reject) => {
      r.#server.once('error', reject);
      r.#server.listen(0, '127.0.0.1', () => resolve());
    });
    return r;
  }

  /** The base endpoint (as OTEL_EXPORTER_OTLP_ENDPOINT takes it). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  #decode(req: TracesRequest): void {
    for (const rs of req.resourceSpans ?? []) {
      const resource = attrs(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ? s.parentSpanId : null,
            name: s.name,
            kind: s.kind,
            start: BigInt(s.startTimeUnixNano),
            end: BigInt(s.endTimeUnixNano),
            attributes: attrs(s.attributes),
            events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
            status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
            resource,
            scope: ss.scope?.name ?? '',
          });
        }
      }
    }
  }

  /** Root spans (`execute_tool …`) and each one's children, by trace. */
  calls(): { root: ReceivedSpan; stages: ReceivedSpan[] }[] {
    return this.spans
      .filter((s) => s.name.startsWith('execute_tool'))
      .map((root) => ({ root, stages: this.spans.filter((s) => s.parentSpanId === root.spanId).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0)) }));
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
