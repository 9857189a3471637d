import type { RuntimeOptions } from '../runtime/index.js';
import { sqliteStore } from '../store/index.js';
import { configPath, loadConfig, type LoadedConfig } from './config.js';

export interface RuntimeFlags {
  readonly workspace?: string | undefined;
  readonly 'state-dir'?: string | undefined;
  readonly config?: string | undefined;
}

/** Runtime options from the configuration file, with the command-line flags taking precedence. */
export function runtimeOptions(values: RuntimeFlags, loaded: LoadedConfig = loadConfig(values.config, values.workspace)): RuntimeOptions {
  const c = loaded.config;
  const stateDir = values['state-dir'] ?? configPath(loaded, c.state_dir);
  return {
    workspace: values.workspace ?? configPath(loaded, c.workspace) ?? process.cwd(),
    ...(stateDir !== undefined ? { stateDir } : {}),
    // The store's own options go to its factory (SQLite, the default store).
    ...(c.durability ? { store: sqliteStore({ durability: c.durability }) } : {}),
    ...(c.secret_patterns ? { secretPatterns: c.secret_patterns } : {}),
    ...(c.limits?.concurrency !== undefined ? { concurrency: c.limits.concurrency } : {}),
    ...(c.limits?.default_deadline_ms !== undefined ? { defaultDeadlineMs: c.limits.default_deadline_ms } : {}),
    ...(c.limits?.abort_grace_ms !== undefined ? { abortGraceMs: c.limits.abort_grace_ms } : {}),
    ...(c.limits?.inline_result_bytes !== undefined ? { inlineResultBytes: c.limits.inline_result_bytes } : {}),
    ...(c.receipts?.retention !== undefined ? { receiptRetention: c.receipts.retention } : {}),
    ...(c.connectors?.http ? { connectors: { http: c.connectors.http } } : {}),
    ...(c.sandbox ? { toolchains: { ...(c.sandbox.toolchains ? { extra: c.sandbox.toolchains } : {}), ...(c.sandbox.default_toolchains !== undefined ? { defaults: c.sandbox.default_toolchains } : {}) } } : {}),
  };
}
