// A runtime whose grant names the provider's loopback address (hosts and private_addresses: a
// loopback address is non-public, so it must be named), a policy that lets Host resources
// through without approval, and a connector configuration for the provider.
import { createRuntime, type Runtime, type RuntimeOptions } from '../../../src/runtime/index.js';
import type { HttpConnectorConfig } from '../../../src/tools/index.js';
import { tempDirs } from '../../support/fixtures.js';

export const PROVIDER_ADDRESS = '127.0.0.2';
export const SECRET_ENV = 'TG_HTTP_TEST_TOKEN';
export const SECRET = 'sk-live-4f9c2e7a1b8d3f6e0a5c9b2d7e4f1a8c';

export const HOST_POLICY = `permit (principal, action, resource is Toolgate::Host);\npermit (principal, action, resource is Toolgate::Tool);`;

export function grantFor(address = PROVIDER_ADDRESS): Record<string, unknown> {
  return { tools: ['*'], effects: ['read', 'network', 'send', 'charge'], hosts: [address], private_addresses: [address] };
}

export function connectorConfig(address = PROVIDER_ADDRESS): HttpConnectorConfig {
  return {
    destinations: [
      {
        host: address,
        methods: { POST: 'send', PUT: 'draft', DELETE: 'delete' },
        secret_headers: [{ header: 'Authorization', env: SECRET_ENV, prefix: 'Bearer ' }],
        reconcile: { url: '{origin}/effects?idempotency_key={idempotency_key}', completed: [200], not_sent: [404] },
      },
    ],
  };
}

export interface HttpRuntime {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly state: string;
  readonly base: string;
  done(): Promise<void>;
}

export async function httpRuntime(extra: Partial<RuntimeOptions> = {}, dirs = tempDirs('tg-http')): Promise<HttpRuntime> {
  process.env[SECRET_ENV] = SECRET;
  const rt = await createRuntime({
    workspace: dirs.workspace,
    stateDir: dirs.state,
    grant: grantFor() as never,
    policies: [{ name: 'http.cedar', text: HOST_POLICY }],
    connectors: { http: connectorConfig() },
    ...extra,
  });
  return {
    rt,
    workspace: dirs.workspace,
    state: dirs.state,
    base: dirs.base,
    done: async () => {
      await rt.close();
      dirs.cleanup();
    },
  };
}
