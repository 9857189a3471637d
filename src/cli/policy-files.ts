import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { GrantFileError, parseGrantFile, PolicyLoadError, type PolicySource, type TaskGrant } from '../policy/index.js';
import { StartupError } from '../protocol/index.js';
import type { Runtime, RuntimeOptions } from '../runtime/index.js';
import { createRuntime } from '../runtime/index.js';
import { runtimeOptions, type RuntimeFlags } from './open-runtime.js';
import { assertOutsideWorkspace, configPath, loadConfig, type LoadedConfig } from './config.js';
import { checkWorkspace, startupFaultOfStore } from './startup-faults.js';

/** Options of the commands that run calls: the grant a new task is issued and the policy files. */
export const POLICY_OPTIONS = {
  grant: { type: 'string' },
  policy: { type: 'string', multiple: true },
} as const;

/** Help lines for POLICY_OPTIONS, the descriptions starting at column `width`. */
export function policyHelp(width: number): string {
  const line = (flag: string, text: string[]): string =>
    [`  ${flag.padEnd(width - 2)}${text[0] ?? ''}`, ...text.slice(1).map((t) => `${' '.repeat(width)}${t}`)].join('\n');
  return [
    line('--grant FILE', ['grant file issued to each new task (schemas/grant.schema.json; default:', 'the default grant of docs/policy.md). A task keeps the grant of its first call.']),
    line('--policy FILE', ['Cedar policy file, validated strictly at start (repeatable; default:', 'policies/default.cedar)']),
  ].join('\n');
}

/**
 * Opens a runtime with the grant and policy files the command was given. A bad grant file or
 * a policy set that fails strict validation is a start-up error (`invalid_grant`, `invalid_policy`),
 * and so are a workspace that is not a directory and a state dir or database the store cannot use
 * (`invalid_workspace`, `state_unavailable`).
 */
export async function openRuntimeWithPolicy(
  values: RuntimeFlags & { grant?: string | undefined; policy?: string[] | undefined },
  extra: Partial<RuntimeOptions> = {},
  loaded: LoadedConfig = loadConfig(values.config, values.workspace),
): Promise<Runtime> {
  // Flags first, then the configuration file (paths relative to it).
  const grantPath = values.grant ?? configPath(loaded, loaded.config.grant);
  const policyPaths = values.policy ?? loaded.config.policies?.map((p) => configPath(loaded, p) as string);
  const options = runtimeOptions(values, loaded);
  checkWorkspace(options.workspace);
  if (grantPath !== undefined) assertOutsideWorkspace('grant', grantPath, options.workspace);
  for (const p of policyPaths ?? []) assertOutsideWorkspace('policy', p, options.workspace);
  const grant = grantPath !== undefined ? readGrantFile(grantPath) : undefined;
  const policies = policyPaths !== undefined ? readPolicyFiles(policyPaths) : undefined;
  try {
    return await createRuntime({ ...options, ...extra, ...(grant ? { grant } : {}), ...(policies ? { policies } : {}) });
  } catch (e) {
    if (PolicyLoadError.isInstance(e)) throw new StartupError('invalid_policy', `--policy: ${e.message}`, e.data, { cause: e });
    throw startupFaultOfStore(e);
  }
}

/** Reads `--grant FILE`: JSON checked against the grant schema; faults are `invalid_grant` start-up errors. */
export function readGrantFile(path: string): TaskGrant {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const message = (e as Error).message;
    const reason = e instanceof SyntaxError ? 'not_json' : 'unreadable';
    throw new StartupError('invalid_grant', `--grant ${path}: ${message}`, { file: path, reason, faults: reason === 'not_json' ? [{ pointer: '', message }] : [] }, { cause: e });
  }
  try {
    return parseGrantFile(value);
  } catch (e) {
    if (e instanceof GrantFileError) throw new StartupError('invalid_grant', `--grant ${path}: ${e.message}`, { ...e.data, file: path }, { cause: e });
    throw e;
  }
}

/** Reads each `--policy FILE` (Cedar text); validation happens when the runtime starts. */
export function readPolicyFiles(paths: readonly string[]): PolicySource[] {
  return paths.map((path) => {
    try {
      return { name: basename(path), text: readFileSync(path, 'utf8') };
    } catch (e) {
      throw new StartupError('invalid_policy', `--policy ${path}: ${(e as Error).message}`, { file: path, reason: 'unreadable', faults: [] }, { cause: e });
    }
  });
}
