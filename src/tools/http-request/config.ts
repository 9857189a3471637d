// `connectors.http` in toolgate.config.json: which destinations take writes, with which effect
// class, which secret headers the connector injects, and how a sent effect is looked up again.
import picomatch from 'picomatch';
import { z } from 'zod';
import { StartupError, faultsOf, type EffectClass } from '../../protocol/index.js';

/** The methods whose effect class a destination declares; GET and HEAD are always `read`. */
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type WriteMethod = (typeof WRITE_METHODS)[number];

// `draft` is a write the provider keeps reversible (a draft, a pending change): the protocol's
// `network` class. The others are the irreversible classes, each behind its own approval.
const writeClass = z.enum(['draft', 'network', 'delete', 'publish', 'send', 'deploy', 'charge']);
export type WriteClass = z.infer<typeof writeClass>;

export function effectClassOf(c: WriteClass): EffectClass {
  return c === 'draft' ? 'network' : c;
}

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name');

export const httpDestinationSchema = z.strictObject({
  host: z.string().min(1).describe('Glob over the normalized host (A-labels, lowercase; an IPv6 literal as [v6]), optionally :port'),
  methods: z
    .strictObject({ POST: writeClass.optional(), PUT: writeClass.optional(), PATCH: writeClass.optional(), DELETE: writeClass.optional() })
    .default({})
    .describe('Effect class of each write method; a method not listed is refused'),
  secret_headers: z
    .array(
      z.strictObject({
        header: headerName,
        env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).describe('Environment variable holding the value (read when the runtime opens)'),
        prefix: z.string().optional().describe('Written before the value, e.g. "Bearer "'),
      }),
    )
    .default([]),
  reconcile: z
    .strictObject({
      url: z
        .string()
        .min(1)
        .describe('Query that finds a sent effect, on the same origin: {url} (the request URL), {origin}, {idempotency_key}; e.g. "{url}?idempotency_key={idempotency_key}" or "{origin}/ops/{idempotency_key}"'),
      completed: z.array(z.number().int().min(100).max(599)).default([200]).describe('Statuses that mean the effect happened'),
      not_sent: z.array(z.number().int().min(100).max(599)).default([404]).describe('Statuses that mean it never arrived (a retry may send it)'),
    })
    .optional(),
  operation_id: z
    .strictObject({
      header: z.string().optional().describe('Response header naming the operation of a 202 (default: Location)'),
      json_pointer: z.string().regex(/^(\/[^/]*)*$/).optional().describe('JSON pointer into a 202 body naming the operation'),
    })
    .optional(),
});
export type HttpDestination = z.infer<typeof httpDestinationSchema>;

export const httpConnectorSchema = z.strictObject({
  destinations: z.array(httpDestinationSchema).default([]),
});
export type HttpConnectorConfig = z.input<typeof httpConnectorSchema>;
export type ParsedHttpConnector = z.infer<typeof httpConnectorSchema>;

/** A destination with its secret values read once, at open. */
export interface ConfiguredDestination {
  readonly config: HttpDestination;
  readonly matches: (host: string, port: number) => boolean;
  /** Header name (lowercase) → value, injected at the boundary; never seen by the model. */
  readonly secrets: ReadonlyMap<string, string>;
}

/** Host glob with an optional `:port`; without one any port matches (as in the grant). */
function hostMatcher(glob: string): (host: string, port: number) => boolean {
  const m = /^(.*):(\d+)$/.exec(glob);
  const isMatch = picomatch(m ? (m[1] as string) : glob, { nocase: true, dot: true });
  const port = m ? Number(m[2]) : null;
  return (host, p) => isMatch(host) && (port === null || port === p);
}

export function configureDestinations(config: HttpConnectorConfig | undefined, env: NodeJS.ProcessEnv): ConfiguredDestination[] {
  const checked = httpConnectorSchema.safeParse(config ?? {});
  if (!checked.success) {
    // A library caller's value (the CLI has checked the file already): the same start-up error.
    const faults = faultsOf(checked.error).map((f) => ({ ...f, pointer: `/connectors/http${f.pointer}` }));
    throw new StartupError('invalid_config', `invalid connectors.http: ${faults.map((f) => `${f.pointer}: ${f.message}`).join('; ')}`, { file: '(RuntimeOptions.connectors)', reason: 'schema', faults });
  }
  return checked.data.destinations.map((d) => {
    const secrets = new Map<string, string>();
    for (const s of d.secret_headers) {
      const value = env[s.env];
      // An unset variable injects nothing: the provider then refuses the call, visibly.
      if (value !== undefined && value !== '') secrets.set(s.header.toLowerCase(), `${s.prefix ?? ''}${value}`);
    }
    return { config: d, matches: hostMatcher(d.host), secrets };
  });
}

/** Every secret value the connector may inject: the runtime redacts them from everything it records. */
export function connectorSecretValues(destinations: readonly ConfiguredDestination[]): string[] {
  const out: string[] = [];
  for (const d of destinations)
    for (const [header, value] of d.secrets) {
      out.push(value);
      const bare = d.config.secret_headers.find((s) => s.header.toLowerCase() === header);
      if (bare?.prefix && value.startsWith(bare.prefix)) out.push(value.slice(bare.prefix.length));
    }
  return out;
}

/** The first destination whose glob matches, as the grant's host sees the host. */
export function destinationFor(destinations: readonly ConfiguredDestination[], host: string, port: number): ConfiguredDestination | undefined {
  return destinations.find((d) => d.matches(host, port));
}
