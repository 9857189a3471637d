import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { faultsOf, StartupError, ToolgateError } from '../protocol/index.js';
import { isPlaceholder } from '../sandbox/index.js';
import { gitConnectorSchema, httpConnectorSchema } from '../tools/index.js';
import { upstreamsSchema } from '../upstream/index.js';
import { rolloutSchema } from '../registry/index.js';
import { telemetrySchema } from '../telemetry/index.js';
import { tasksConfigShape } from '../tasks/index.js';

export const CONFIG_FILE = 'toolgate.config.json';

/** `toolgate.config.json`: schemas/config.schema.json is generated from this. Paths are relative to the file. */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  workspace: z.string().min(1).optional().describe('Workspace root'),
  state_dir: z.string().min(1).optional().describe('State dir (receipts, effects, artifacts); outside the workspace'),
  grant: z.string().min(1).optional().describe('Grant file issued to each new task (schemas/grant.schema.json); keep it outside the workspace'),
  policies: z.array(z.string().min(1)).min(1).optional().describe('Cedar policy files (default: policies/default.cedar); keep them outside the workspace'),
  durability: z.enum(['normal', 'full']).optional().describe('normal: survives a process crash; full: fsync at every commit'),
  store: z
    .strictObject({
      kind: z.enum(['sqlite', 'postgres']).describe('sqlite (default): one file in the state dir, zero setup; postgres: one database several hosts share'),
      url: z.string().min(1).optional().describe('The PostgreSQL database, postgres://user@host:port/database (a unix socket: ?host=/run/postgresql); --store-url and TOOLGATE_STORE_URL take precedence. Keep a password out of this file (the workspace is the agent\'s): use TOOLGATE_STORE_URL or ~/.pgpass'),
    })
    .optional()
    .describe('Where receipts, effects, tasks and the policy state live'),
  receipts: z
    .strictObject({
      retention: z.enum(['digest', 'inline']).optional().describe('What a stored receipt keeps of workspace content its result carries (an fs.read page): digest (default) its sha256 and size; inline a copy'),
    })
    .optional(),
  secret_patterns: z.array(z.string().min(1)).optional().describe('Secret path patterns added to the built-in list'),
  artifacts: z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('state_dir') }),
      z.strictObject({ kind: z.literal('folder'), path: z.string().min(1).describe('A folder every host reaches at the same path (relative to this file)') }),
    ])
    .optional()
    .describe('Where artifacts (outputs, pre-images for undo and reconcile) live: state_dir (default), or a folder the hosts sharing one database share (docs/scale.md)'),
  limits: z
    .strictObject({
      concurrency: z.number().int().min(1).max(1024).optional(),
      default_deadline_ms: z.number().int().min(1).optional(),
      abort_grace_ms: z.number().int().min(0).optional(),
      detach_grace_ms: z.number().int().min(0).optional(),
      inline_result_bytes: z.number().int().min(1024).optional(),
    })
    .optional(),
  serve: z
    .strictObject({
      host: z.string().min(1).optional(),
      token_file: z.string().min(1).optional(),
      result_form: z.enum(['auto', 'both', 'text', 'structured']).optional().describe('Which half of a tools/call result carries it: auto (default: text for clients that give the model structuredContent, both for others), both, text, structured'),
    })
    .optional(),
  sandbox: z
    .strictObject({
      toolchains: z.array(z.string().min(1)).optional().describe('Toolchain directories shown read-only in shell.exec and put on PATH (absolute or ~/, added to the default list); one that would expose a credential store is refused'),
      default_toolchains: z.boolean().optional().describe('Show the default toolchain list (~/.pyenv, ~/.cargo/bin, ~/.nvm, …); default true'),
    })
    .optional(),
  connectors: z
    .strictObject({
      http: httpConnectorSchema.optional().describe('http.request: which destinations take writes (effect class per method), secret headers from the environment, the reconcile query (docs/network.md)'),
      git: gitConnectorSchema.optional().describe('git.push / git.fetch: remotes by name, the effect class of a push, whether force may be asked for, the credential header from the environment (docs/network.md)'),
    })
    .optional(),
  upstreams: upstreamsSchema
    .optional()
    .describe('MCP servers Toolgate sits in front of (docs/gateway.md): a sandboxed command or a Streamable HTTP URL, and a connector manifest per tool'),
  rollout: rolloutSchema.optional(),
  telemetry: telemetrySchema.optional().describe('Spans over OTLP/HTTP and the Prometheus /metrics endpoint (docs/operating.md)'),
  tasks: tasksConfigShape.optional(),
});
export type Config = z.infer<typeof configSchema>;

export interface LoadedConfig {
  readonly path: string | null;
  readonly config: Config;
}

/**
 * Reads `--config FILE`, or else `toolgate.config.json` in the workspace given by the flags
 * (or the current directory) when there is one. Errors are `invalid_config` start-up errors naming
 * the file and each fault's JSON pointer.
 */
export function loadConfig(explicit: string | undefined, workspaceFlag: string | undefined): LoadedConfig {
  const path = explicit ?? join(workspaceFlag ?? process.cwd(), CONFIG_FILE);
  if (!existsSync(path)) {
    if (explicit !== undefined) throw new StartupError('invalid_config', `--config ${explicit}: no such file`, { file: explicit, reason: 'no_such_file', faults: [] });
    return { path: null, config: {} };
  }
  // shell.exec holds an absent config path with an empty mode-0000 placeholder while a command
  // runs (so the command cannot create it). Only Toolgate makes one, and it stands for "no
  // configuration": a run in progress, or a crash the next run sweeps.
  if (explicit === undefined && isPlaceholder(lstatSync(path))) return { path: null, config: {} };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new StartupError('invalid_config', `${path}: cannot read: ${(e as Error).message}`, { file: path, reason: 'unreadable', faults: [] }, { cause: e });
  }
  if (text.length === 0) throw new StartupError('invalid_config', `${path}: empty; remove it or write a configuration`, { file: path, reason: 'empty', faults: [] });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    throw new StartupError('invalid_config', `${path}: not JSON: ${message}`, { file: path, reason: 'not_json', faults: [{ pointer: '', message }] });
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const faults = faultsOf(parsed.error);
    const lines = faults.map((f) => `${f.pointer || '/'}: ${f.message}`);
    throw new StartupError('invalid_config', `${path}: invalid configuration:\n  ${lines.join('\n  ')}`, { file: path, reason: 'schema', faults });
  }
  return { path: resolve(path), config: parsed.data };
}

/** A path from the config file, relative to the file's folder. */
export function configPath(loaded: LoadedConfig, value: string | undefined): string | undefined {
  if (value === undefined || loaded.path === null) return value;
  return isAbsolute(value) ? value : resolve(dirname(loaded.path), value);
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : dir + '/');
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Refuses a grant or policy file inside the workspace: the agent's tools (fs.write, shell.exec)
 * could rewrite it and so choose the grant and policy of the next start. Checked on the path as
 * given (a link inside the workspace can be replaced) and on the file it resolves to.
 */
export function assertOutsideWorkspace(option: 'grant' | 'policy', file: string, workspace: string): void {
  const given = resolve(file);
  const roots = [resolve(workspace), realOrSelf(resolve(workspace))];
  const seen = [given, realOrSelf(given)];
  if (seen.some((f) => roots.some((w) => within(f, w)))) {
    throw new ToolgateError('invalid_resource', `the ${option} file ${given} lies inside the workspace, where the agent's tools could rewrite it; keep it outside`, {
      option,
      file: given,
      workspace: roots[1] as string,
      reason: 'inside_workspace',
    });
  }
}
