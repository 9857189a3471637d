// OTLP/HTTP export of the runtime's spans, set up only when an endpoint is configured: the SDK
// and the exporter are loaded then, so a serve without tracing loads none of them. The exporter
// sends OTLP JSON (exporter-trace-otlp-http); spans leave in batches, and `shutdown()` flushes
// what is queued before the process ends.
import type { TracerProvider } from '@opentelemetry/api';
import { TOOLGATE_VERSION } from '../protocol/index.js';
import type { OtlpTarget } from './config.js';

export interface Tracing {
  readonly provider: TracerProvider;
  /** Exports every queued span, then stops (bounded by the exporter's own timeout). */
  shutdown(): Promise<void>;
}

export async function startTracing(settings: OtlpTarget): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName ?? 'toolgate', [ATTR_SERVICE_VERSION]: TOOLGATE_VERSION }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  return { provider, shutdown: () => provider.shutdown() };
}
