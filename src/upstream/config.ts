// `upstreams` in toolgate.config.json: the MCP servers Toolgate sits in front of, how each is
// started (a sandboxed command, or a Streamable HTTP URL), and the connector manifest of each
// of its tools: what the upstream cannot be trusted to say about itself (docs/gateway.md).
import { z } from 'zod';
import { StartupError, faultsOf, type EffectClass } from '../protocol/index.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

/**
 * Effect classes a manifest may declare. `draft` is a write the provider keeps reversible (a
 * draft, a pending change): the protocol's `network` class, as for http.request.
 */
export const MANIFEST_EFFECTS = ['read', 'draft', 'publish', 'send', 'delete', 'deploy', 'charge'] as const;
export type ManifestEffect = (typeof MANIFEST_EFFECTS)[number];

export function effectClassOfManifest(e: ManifestEffect): EffectClass {
  return e === 'draft' ? 'network' : e;
}

const resourceArg = z.strictObject({
  arg: z.string().min(1).describe('Top-level argument that names the resource'),
  kind: z.literal('resource').default('resource'),
  type: z.string().regex(/^[a-z][a-z0-9_-]*$/).describe('Resource type Cedar sees (resource.type), e.g. "repository"'),
  access: z.enum(['read', 'write']).optional().describe('Default: read for a read tool, write otherwise'),
  normalize: z
    .array(z.enum(['trim', 'lowercase', 'strip_trailing_slash']))
    .default([])
    .describe('Applied in order before Cedar sees the id (e.g. GitHub owner/repo is case-insensitive: lowercase)'),
  optional: z.boolean().default(false).describe('An absent argument names no resource (otherwise refused)'),
});
export type ResourceArg = z.infer<typeof resourceArg>;

/** A value of the reconcile call: `{idempotency_key}`, `{args.NAME}`, or a literal. */
const reconcileValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const toolManifestSchema = z.strictObject({
  effect: z.enum(MANIFEST_EFFECTS).describe('Effect class; the upstream\'s annotations are hints, never policy'),
  version: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/)
    .default('1.0.0')
    .describe('Registry version; raise it to accept a breaking change of the upstream under a new version'),
  resources: z.array(resourceArg).default([]).describe('Arguments that name resources of the external system'),
  idempotency_arg: z.string().min(1).optional().describe('Argument Toolgate fills with the key it derives from the task and the logical effect'),
  reconcile: z
    .strictObject({
      tool: z.string().min(1).describe('Upstream tool (a read) that looks the effect up'),
      arguments: z.record(z.string(), reconcileValue).default({}).describe('Its arguments: literals, "{idempotency_key}", or "{args.NAME}" (an argument of the call, recorded at send)'),
      found: z
        .strictObject({
          pointer: z.string().regex(/^(\/[^/]*)*$/).describe('JSON pointer into the answer (structuredContent, else the first text content parsed as JSON)'),
          equals: z.unknown().optional().describe('The value there that means "the effect happened"; absent: any value but null, false, 0, "" or []'),
        })
        .describe('How the answer says the effect happened; any other successful answer means it did not'),
    })
    .optional(),
  approval: z.boolean().default(false).describe('Every call needs an approval, whatever policy allows'),
});
export type ToolManifest = z.infer<typeof toolManifestSchema>;

const upstreamName = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'an upstream name: lowercase letters, digits, _ and -');

const common = {
  namespace: upstreamName
    .optional()
    .describe('Registry namespace of its tools (default: the upstream\'s name). Two upstreams may share one to serve two versions of its tools side by side (their manifests give the versions; a rollout canary picks which new tasks pin which, docs/registry.md#rollout)'),
  tools: z.record(z.string(), toolManifestSchema).default({}).describe('Connector manifest per upstream tool name'),
  unmanifested: z
    .enum(['refuse', 'approve'])
    .default('refuse')
    .describe('A tool without a manifest: refused (not listed), or admitted as unclassified, every call behind an approval'),
  call_timeout_ms: z.number().int().min(100).max(3_600_000).default(60_000).describe('Longest an upstream call may take'),
  check_interval_ms: z.number().int().min(1000).optional().describe('Also re-list the tools this often (drift the upstream does not announce)'),
};

export const stdioUpstreamSchema = z.strictObject({
  command: z.string().min(1).describe('Program to run (absolute, or found on PATH inside the sandbox)'),
  args: z.array(z.string()).default([]),
  env: z
    .record(envName, z.union([z.string(), z.strictObject({ from_env: envName })]))
    .default({})
    .describe('Environment of the server: a literal value, or { "from_env": NAME } to pass a variable of Toolgate\'s environment (redacted from every record)'),
  network: z.enum(['none', 'host']).default('none').describe('none (default): no network at all; host: the host network'),
  workspace: z
    .enum(['none', 'read-only'])
    .default('none')
    .describe('none (default): the workspace is hidden from the server; read-only: shown read-only, its secret files masked as for shell.exec'),
  data_dir: z.string().min(1).optional().describe('Writable directory the server keeps (its only writable place besides /tmp); default: a fresh one, removed on shutdown'),
  ...common,
});

export const httpUpstreamSchema = z.strictObject({
  url: z.url().describe('Streamable HTTP endpoint'),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/), z.strictObject({ from_env: envName, prefix: z.string().optional() }))
    .default({})
    .describe('Headers from Toolgate\'s environment (credentials; redacted from every record)'),
  ...common,
});

/**
 * Names an upstream may not take: the families of Toolgate's own tools (and ones kept for the
 * tools issue 16 adds), whose entries an upstream's `NAME.tool` would collide with or imitate.
 */
export const RESERVED_UPSTREAM_NAMES = ['fs', 'shell', 'http', 'git', 'net', 'task', 'toolgate', 'undo'] as const;

export const upstreamsSchema = z
  .record(upstreamName, z.union([stdioUpstreamSchema, httpUpstreamSchema]))
  .superRefine((value, ctx) => {
    for (const [name, u] of Object.entries(value)) {
      for (const [taken, path] of [[name, [name]], [u.namespace, [name, 'namespace']]] as const) {
        if (taken !== undefined && (RESERVED_UPSTREAM_NAMES as readonly string[]).includes(taken)) {
          ctx.addIssue({ code: 'custom', path: [...path], message: `the name ${taken} is reserved for Toolgate's own tools (${RESERVED_UPSTREAM_NAMES.join(', ')})` });
        }
      }
    }
  });
export type UpstreamsConfig = z.input<typeof upstreamsSchema>;
export type StdioUpstream = z.infer<typeof stdioUpstreamSchema>;
export type HttpUpstream = z.infer<typeof httpUpstreamSchema>;
export type UpstreamConfig = StdioUpstream | HttpUpstream;

/** The registry namespace of an upstream's tools. */
export function namespaceOf(name: string, u: UpstreamConfig): string {
  return u.namespace ?? name;
}

export function isStdio(u: UpstreamConfig): u is StdioUpstream {
  return 'command' in u;
}

/** A library caller's value (the CLI checked the file already): the same start-up error. */
export function parseUpstreams(value: UpstreamsConfig | undefined): Record<string, UpstreamConfig> {
  const checked = upstreamsSchema.safeParse(value ?? {});
  if (!checked.success) {
    const faults = faultsOf(checked.error).map((f) => ({ ...f, pointer: `/upstreams${f.pointer}` }));
    throw new StartupError('invalid_config', `invalid upstreams: ${faults.map((f) => `${f.pointer}: ${f.message}`).join('; ')}`, { file: '(RuntimeOptions.upstreams)', reason: 'schema', faults });
  }
  return checked.data;
}

/** Every value read from Toolgate's environment for the upstreams: redacted from everything recorded. */
export function upstreamSecretValues(upstreams: Readonly<Record<string, UpstreamConfig>>, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const u of Object.values(upstreams)) {
    const refs = isStdio(u) ? Object.values(u.env).flatMap((v) => (typeof v === 'string' ? [] : [v.from_env])) : Object.values(u.headers).map((h) => h.from_env);
    for (const name of refs) {
      const value = env[name];
      if (value !== undefined && value.length >= 4) out.push(value);
    }
  }
  return out;
}
