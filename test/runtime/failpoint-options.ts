// The runtime options of the failpoint matrix, shared by the child that is killed and the
// runtime that recovers: the same grant, policies and connectors on both sides of the crash.
import type { RuntimeOptions } from '../../src/runtime/index.js';
import { connectorConfig, grantFor, HOST_POLICY, SECRET, SECRET_ENV } from '../tools/http-request/harness.js';

export function failpointRuntimeOptions(kind: 'fs' | 'http'): Partial<RuntimeOptions> {
  if (kind === 'fs') return { grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] } };
  process.env[SECRET_ENV] = SECRET;
  return { grant: grantFor() as never, policies: [{ name: 'http.cedar', text: HOST_POLICY }], connectors: { http: connectorConfig() } };
}
