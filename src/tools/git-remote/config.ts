// `connectors.git` in toolgate.config.json: remotes by name (the model names `origin`, the
// operator says where that is), the effect class a push to each takes, whether a force push may
// be asked for at all, and the credential sent, read from the environment at open.
import picomatch from 'picomatch';
import { z } from 'zod';
import { StartupError, faultsOf, type EffectClass } from '../../protocol/index.js';
import { normalizeUrl, type SchemePorts } from '../../resources/index.js';

/**
 * The transports the connector speaks: each can be pinned to an authorized address (http(s) by
 * curl's resolve list, git:// by dialing the address). ssh is not among them: its host key and
 * ProxyCommand/`ssh_config` would need a pinning story of their own.
 */
export const GIT_REMOTE_SCHEMES: SchemePorts = { http: 80, https: 443, git: 9418 };

// `draft`: the remote keeps it reversible (a review ref): the protocol's `network` class.
const pushClass = z.enum(['draft', 'publish', 'deploy']);
export type PushClass = z.infer<typeof pushClass>;

export function pushEffectClass(c: PushClass): EffectClass {
  return c === 'draft' ? 'network' : c;
}

export const gitRemoteSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a remote name: letters, digits, . _ -').optional().describe('What the model calls this remote (e.g. "origin"); git.fetch writes refs/remotes/<name>/…'),
  url: z.string().min(1).describe('http(s):// or git:// URL of a named remote; for an unnamed entry, a glob over URLs as normalized (e.g. "https://git.example.com/**") that this entry configures'),
  push: pushClass.default('publish').describe('Effect class of a push here: draft (reversible, the network class), publish (default), deploy (a push that deploys)'),
  allow_force: z.boolean().default(false).describe('Whether git.push may be asked for force: true here (a force push is the delete class: it can drop commits from the remote)'),
  auth: z
    .strictObject({
      header: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/).default('Authorization'),
      env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).describe('Environment variable holding the value (read when the runtime opens)'),
      prefix: z.string().regex(/^[^\r\n]*$/).optional().describe('Written before the value, e.g. "Bearer " or "Basic "'),
    })
    .optional()
    .describe('http(s) only: a header git sends with every request to this remote (http.extraHeader)'),
});
export type GitRemoteEntry = z.infer<typeof gitRemoteSchema>;

export const gitConnectorSchema = z.strictObject({
  remotes: z.array(gitRemoteSchema).default([]),
});
export type GitConnectorConfig = z.input<typeof gitConnectorSchema>;

export interface ConfiguredRemote {
  readonly config: GitRemoteEntry;
  /** A named entry's URL as normalized (what the model reaches by the name); null for a glob entry. */
  readonly url: string | null;
  /** Whether a URL (as normalized) is this entry's: equal for a named entry, the glob otherwise. */
  readonly matches: (url: string) => boolean;
  /** `Header: value`, or null (no auth, or its variable unset). */
  readonly header: string | null;
  /** The values to redact: with and without the prefix. */
  readonly secrets: readonly string[];
}

export function configureRemotes(config: GitConnectorConfig | undefined, env: NodeJS.ProcessEnv): ConfiguredRemote[] {
  const checked = gitConnectorSchema.safeParse(config ?? {});
  if (!checked.success) {
    const faults = faultsOf(checked.error).map((f) => ({ ...f, pointer: `/connectors/git${f.pointer}` }));
    throw new StartupError('invalid_config', `invalid connectors.git: ${faults.map((f) => `${f.pointer}: ${f.message}`).join('; ')}`, { file: '(RuntimeOptions.connectors)', reason: 'schema', faults });
  }
  return checked.data.remotes.map((r, i) => {
    let named: string | null = null;
    if (r.name !== undefined) {
      try {
        named = normalizeUrl(r.url, GIT_REMOTE_SCHEMES).url;
      } catch (e) {
        const fault = { pointer: `/connectors/git/remotes/${i}/url`, message: e instanceof Error ? e.message : String(e) };
        throw new StartupError('invalid_config', `invalid connectors.git: ${fault.pointer}: ${fault.message}`, { file: '(RuntimeOptions.connectors)', reason: 'schema', faults: [fault] });
      }
    }
    const value = r.auth ? env[r.auth.env] : undefined;
    const has = r.auth !== undefined && value !== undefined && value !== '';
    const full = has ? `${r.auth?.prefix ?? ''}${value}` : null;
    const glob = picomatch(r.url, { nocase: false, dot: true });
    return {
      config: r,
      url: named,
      matches: named !== null ? (url) => url === named : (url) => glob(url),
      header: full === null ? null : `${r.auth?.header ?? 'Authorization'}: ${full}`,
      secrets: full === null ? [] : [full, ...(value !== undefined && value !== full ? [value] : [])],
    };
  });
}

export function remoteNamed(remotes: readonly ConfiguredRemote[], name: string): ConfiguredRemote | undefined {
  return remotes.find((r) => r.config.name === name);
}

export function remoteForUrl(remotes: readonly ConfiguredRemote[], url: string): ConfiguredRemote | undefined {
  return remotes.find((r) => r.matches(url));
}

export function gitConnectorSecretValues(remotes: readonly ConfiguredRemote[]): string[] {
  return remotes.flatMap((r) => [...r.secrets]);
}
