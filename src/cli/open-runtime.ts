import type { RuntimeOptions } from '../runtime/index.js';
import { postgresStore, sqliteStore } from '../store/index.js';
import { configPath, loadConfig, type LoadedConfig } from './config.js';
import { storeChoice } from './store-choice.js';

export interface RuntimeFlags {
  readonly workspace?: string | undefined;
  readonly 'state-dir'?: string | undefined;
  readonly config?: string | undefined;
  readonly 'store-url'?: string | undefined;
}

/** An upstream's data_dir is relative to the configuration file, like every other path in it. */
function upstreamsRelativeTo(loaded: LoadedConfig, upstreams: NonNullable<LoadedConfig['config']['upstreams']>): NonNullable<LoadedConfig['config']['upstreams']> {
  return Object.fromEntries(Object.entries(upstreams).map(([k, u]) => [k, 'data_dir' in u && u.data_dir !== undefined ? { ...u, data_dir: configPath(loaded, u.data_dir) ?? u.data_dir } : u]));
}

/** Runtime options from the configuration file, with the command-line flags taking precedence. */
export function runtimeOptions(values: RuntimeFlags, loaded: LoadedConfig = loadConfig(values.config, values.workspace), env: NodeJS.ProcessEnv = process.env): RuntimeOptions {
  const c = loaded.config;
  const store = storeChoice(values['store-url'], loaded, env);
  const stateDir = values['state-dir'] ?? configPath(loaded, c.state_dir);
  return {
    workspace: values.workspace ?? configPath(loaded, c.workspace) ?? process.cwd(),
    ...(stateDir !== undefined ? { stateDir } : {}),
    // The store's own options go to its factory: SQLite's durability (PostgreSQL always commits
    // durably: synchronous_commit on), PostgreSQL's URL.
    ...(store.kind === 'postgres' ? { store: postgresStore({ url: store.url }) } : c.durability ? { store: sqliteStore({ durability: c.durability }) } : {}),
    ...(c.secret_patterns ? { secretPatterns: c.secret_patterns } : {}),
    ...(c.artifacts?.kind === 'folder' ? { artifacts: { kind: 'folder', path: configPath(loaded, c.artifacts.path) ?? c.artifacts.path } } : {}),
    ...(c.limits?.concurrency !== undefined ? { concurrency: c.limits.concurrency } : {}),
    ...(c.limits?.default_deadline_ms !== undefined ? { defaultDeadlineMs: c.limits.default_deadline_ms } : {}),
    ...(c.limits?.abort_grace_ms !== undefined ? { abortGraceMs: c.limits.abort_grace_ms } : {}),
    ...(c.limits?.detach_grace_ms !== undefined ? { detachGraceMs: c.limits.detach_grace_ms } : {}),
    ...(c.limits?.inline_result_bytes !== undefined ? { inlineResultBytes: c.limits.inline_result_bytes } : {}),
    ...(c.receipts?.retention !== undefined ? { receiptRetention: c.receipts.retention } : {}),
    ...(c.connectors?.http || c.connectors?.git ? { connectors: { ...(c.connectors.http ? { http: c.connectors.http } : {}), ...(c.connectors.git ? { git: c.connectors.git } : {}) } } : {}),
    ...(c.rollout ? { rollout: c.rollout } : {}),
    ...(c.upstreams ? { upstreams: upstreamsRelativeTo(loaded, c.upstreams) } : {}),
    ...(c.tasks ? { tasks: c.tasks.worktree_dir === undefined ? c.tasks : { ...c.tasks, worktree_dir: configPath(loaded, c.tasks.worktree_dir) ?? c.tasks.worktree_dir } } : {}),
    ...(c.sandbox ? { toolchains: { ...(c.sandbox.toolchains ? { extra: c.sandbox.toolchains } : {}), ...(c.sandbox.default_toolchains !== undefined ? { defaults: c.sandbox.default_toolchains } : {}) } } : {}),
  };
}
