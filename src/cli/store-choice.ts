// Which store a command opens: PostgreSQL when a URL is given (`--store-url`, then
// TOOLGATE_STORE_URL, then `store.url` of the configuration, in that order of precedence) or
// the configuration says `store.kind: "postgres"`; else SQLite in the state dir, with zero setup.
import { StartupError } from '../protocol/index.js';
import type { LoadedConfig } from './config.js';

export const STORE_URL_ENV = 'TOOLGATE_STORE_URL';

export type StoreChoice = { readonly kind: 'sqlite' } | { readonly kind: 'postgres'; readonly url: string; readonly from: '--store-url' | typeof STORE_URL_ENV | 'store.url' };

export function storeChoice(flag: string | undefined, loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): StoreChoice {
  if (flag !== undefined && flag !== '') return { kind: 'postgres', url: flag, from: '--store-url' };
  const fromEnv = env[STORE_URL_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { kind: 'postgres', url: fromEnv, from: STORE_URL_ENV };
  const store = loaded.config.store;
  if (store?.url !== undefined) {
    if (store.kind !== 'postgres') throw configFault(loaded, '/store/url', 'a URL is only for kind "postgres"');
    return { kind: 'postgres', url: store.url, from: 'store.url' };
  }
  if (store?.kind === 'postgres') throw configFault(loaded, '/store/url', `kind "postgres" needs the database: store.url, --store-url URL or ${STORE_URL_ENV}`);
  return { kind: 'sqlite' };
}

function configFault(loaded: LoadedConfig, pointer: string, message: string): StartupError {
  const file = loaded.path ?? 'toolgate.config.json';
  return new StartupError('invalid_config', `${file}: invalid configuration:\n  ${pointer}: ${message}`, { file, reason: 'schema', faults: [{ pointer, message }] });
}
