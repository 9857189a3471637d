// `toolgate serve --metrics-port PORT`: Prometheus /metrics on loopback, for a serve that has no
// HTTP listener of its own (stdio). Loopback only: the metrics name tools, hosts and error rates.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolgateMetrics } from './metrics.js';

export interface MetricsServing {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function serveMetrics(metrics: ToolgateMetrics, port: number, host = '127.0.0.1'): Promise<MetricsServing> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : body),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
    );
  });
  // Scrapers keep connections alive; close() must not wait for them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
