import { ToolgateError } from '../../protocol/index.js';
import { MIN_SECRET_LENGTH } from '../../redact/index.js';
import { SANDBOX_PATH } from '../../resources/index.js';
import type { ShellExecArgs } from './schema.js';

/** What every command gets unless the call overrides it; HOME is the private, writable /tmp. The PATH is the one shell intent resolves programs with. */
export const DEFAULT_ENV: Readonly<Record<string, string>> = {
  PATH: SANDBOX_PATH,
  HOME: '/tmp',
  LANG: 'C.UTF-8',
};

export interface BuiltEnv {
  readonly env: Record<string, string>;
  /** Values to redact from everything recorded. */
  readonly secrets: string[];
  readonly notes: string[];
}

/** The command's whole environment, from the allow-list; nothing else of the runtime's passes. */
export function buildEnv(spec: ShellExecArgs['env'], host: Readonly<Record<string, string | undefined>>): BuiltEnv {
  const env: Record<string, string> = { ...DEFAULT_ENV };
  const secrets: string[] = [];
  const notes: string[] = [];
  for (const name of spec?.pass ?? []) {
    const v = host[name];
    if (v === undefined) notes.push(`env ${name}: not set in the runtime's environment`);
    else env[name] = v;
  }
  for (const name of spec?.secret ?? []) {
    const v = host[name];
    if (v === undefined) {
      notes.push(`env ${name}: not set in the runtime's environment`);
      continue;
    }
    // A value this short cannot be redacted without destroying ordinary text: refuse to pass it.
    if (v.length < MIN_SECRET_LENGTH) {
      throw new ToolgateError('invalid_arguments', `secret ${name} is shorter than ${MIN_SECRET_LENGTH} characters and could not be redacted`, {
        faults: [{ pointer: '/env/secret', message: `${name} is too short to redact` }],
      });
    }
    env[name] = v;
    secrets.push(v);
  }
  for (const [name, v] of Object.entries(spec?.set ?? {})) env[name] = v;
  return { env, secrets, notes };
}
