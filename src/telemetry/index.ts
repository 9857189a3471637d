export { ToolgateMetrics, type MetricsOptions } from './metrics.js';
export { serveMetrics, type MetricsServing } from './metrics-server.js';
export { startTracing, type Tracing } from './otlp.js';
export { otlpTarget, telemetrySchema, tracesUrl, type OtlpTarget, type TelemetryConfig } from './config.js';
