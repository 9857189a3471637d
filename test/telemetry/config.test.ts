import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { otlpTarget, telemetrySchema } from '../../src/telemetry/index.js';

describe('telemetry configuration', () => {
  it('the configuration\'s endpoint wins over the environment; /v1/traces is appended to a base endpoint', () => {
    const config = telemetrySchema.parse({ otlp: { endpoint: 'http://127.0.0.1:4318/', headers_from_env: [{ header: 'x-key', env: 'K', prefix: 'Key ' }] } });
    assert.deepEqual(otlpTarget(config, { K: 'v', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' }), { url: 'http://127.0.0.1:4318/v1/traces', headers: { 'x-key': 'Key v' } });
    assert.deepEqual(otlpTarget(config, {}), { url: 'http://127.0.0.1:4318/v1/traces', headers: {} }, 'an unset variable sends no header');
  });

  it('without it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT as a base, else no tracing', () => {
    assert.equal(otlpTarget(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:1/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:2' })?.url, 'http://c:1/custom');
    assert.equal(otlpTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:2' })?.url, 'http://b:2/v1/traces');
    assert.equal(otlpTarget(undefined, {}), null);
    assert.equal(otlpTarget({}, {}), null);
  });

  it('OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn tracing off', () => {
    const config = { otlp: { endpoint: 'http://127.0.0.1:4318' } };
    assert.equal(otlpTarget(config, { OTEL_SDK_DISABLED: 'true' }), null);
    assert.equal(otlpTarget(config, { OTEL_TRACES_EXPORTER: 'none' }), null);
  });

  it('refuses what is not an http(s) URL, unknown fields and a bad header name', () => {
    for (const bad of [
      { otlp: { endpoint: 'grpc://x:4317' } },
      { otlp: { endpoint: 'not a url' } },
      { otlp: { endpoint: 'http://x', nope: 1 } },
      { otlp: { endpoint: 'http://x', headers_from_env: [{ header: 'bad header', env: 'K' }] } },
      { metrics: { port: 70000 } },
    ]) {
      assert.equal(telemetrySchema.safeParse(bad).success, false, JSON.stringify(bad));
    }
  });
});
