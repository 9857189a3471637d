// `telemetry` in toolgate.config.json, and the standard OpenTelemetry environment variables.
import { z } from 'zod';

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name');

export const telemetrySchema = z.strictObject({
  otlp: z
    .strictObject({
      endpoint: z
        .url({ protocol: /^https?$/ })
        .describe('The collector\'s OTLP/HTTP base URL, e.g. http://127.0.0.1:4318; spans go to <endpoint>/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT is used when this is absent)'),
      headers_from_env: z
        .array(
          z.strictObject({
            header: headerName,
            env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).describe('Environment variable holding the value (read at start; unset: the header is not sent)'),
            prefix: z.string().optional().describe('Written before the value, e.g. "Bearer "'),
          }),
        )
        .default([])
        .describe('Request headers whose values come from the environment (keep keys out of this file)'),
      service_name: z.string().min(1).optional().describe('The service.name resource attribute (default toolgate)'),
    })
    .optional()
    .describe('Export each call\'s spans over OTLP/HTTP (docs/operating.md)'),
  metrics: z
    .strictObject({
      port: z.number().int().min(0).max(65535).optional().describe('Serve Prometheus /metrics on 127.0.0.1:PORT (serve --stdio; serve --http has /metrics on its own port); --metrics-port overrides'),
    })
    .optional(),
});
export type TelemetryConfig = z.input<typeof telemetrySchema>;

/** Where spans go and with which headers: the full traces URL. */
export interface OtlpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName?: string;
}

/** `<endpoint>/v1/traces`, the signal path OTLP/HTTP appends to a base endpoint (as to OTEL_EXPORTER_OTLP_ENDPOINT). */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The OTLP target, or null when tracing is not configured: the configuration's endpoint, else
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (a full URL), else OTEL_EXPORTER_OTLP_ENDPOINT (a base);
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off. OTEL_EXPORTER_OTLP_HEADERS
 * is read by the exporter itself.
 */
export function otlpTarget(config: TelemetryConfig | undefined, env: NodeJS.ProcessEnv): OtlpTarget | null {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true' || env['OTEL_TRACES_EXPORTER']?.trim().toLowerCase() === 'none') return null;
  const otlp = config?.otlp;
  const headers: Record<string, string> = {};
  for (const h of otlp?.headers_from_env ?? []) {
    const value = env[h.env];
    if (value !== undefined && value !== '') headers[h.header] = `${h.prefix ?? ''}${value}`;
  }
  const named = otlp?.service_name !== undefined ? { serviceName: otlp.service_name } : {};
  if (otlp !== undefined) return { url: tracesUrl(otlp.endpoint), headers, ...named };
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (traces) return { url: traces, headers, ...named };
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  if (base) return { url: tracesUrl(base), headers, ...named };
  return null;
}
