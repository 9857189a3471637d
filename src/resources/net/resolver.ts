import { promises as dns } from 'node:dns';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves a host name to every address it has (A and AAAA). Injected, so an operator can point
 * Toolgate at a resolver of its choice and tests at a DNS server they run. It resolves once per
 * authorization; the connection then goes to an address it answered (pinned.ts), never to a
 * second lookup's.
 */
export interface HostResolver {
  resolve(host: string, signal?: AbortSignal): Promise<readonly ResolvedAddress[]>;
}

function familyOf(n: number): 4 | 6 {
  return n === 6 ? 6 : 4;
}

/**
 * The default: the system resolver (`getaddrinfo` through `dns.lookup`, `all: true`, the order
 * it answers in). It reads /etc/hosts and nsswitch like every other program on the host, so
 * `localhost` and names the operator pinned there are classified as what they are, and it
 * returns both families in one call. getaddrinfo cannot be cancelled: on abort the answer is
 * dropped (the thread finishes its lookup, nothing connects on it).
 */
export function systemResolver(): HostResolver {
  return {
    async resolve(host, signal) {
      signal?.throwIfAborted();
      const lookup = dns.lookup(host, { all: true, order: 'verbatim' });
      const answers = signal === undefined ? await lookup : await abortable(lookup, signal);
      return answers.map((a) => ({ address: a.address, family: familyOf(a.family) }));
    },
  };
}

export interface DnsServerOptions {
  /** `host` or `host:port` (IPv6 in brackets), as `dns.Resolver#setServers` takes them. */
  readonly servers: readonly string[];
  /** Per query, milliseconds (c-ares doubles it on each try). */
  readonly timeoutMs?: number;
  readonly tries?: number;
}

const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Queries named DNS servers directly (A and AAAA in parallel, /etc/hosts not read). Each
 * resolution has its own `dns.Resolver`, so an abort cancels exactly its queries.
 */
export function dnsServerResolver(options: DnsServerOptions): HostResolver {
  return {
    async resolve(host, signal) {
      signal?.throwIfAborted();
      const resolver = new dns.Resolver({ timeout: options.timeoutMs ?? 2000, tries: options.tries ?? 2 });
      resolver.setServers([...options.servers]);
      const cancel = () => resolver.cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      try {
        const family = async (query: Promise<string[]>, f: 4 | 6): Promise<ResolvedAddress[]> => {
          try {
            return (await query).map((address) => ({ address, family: f }));
          } catch (error) {
            if (NO_ANSWER.has((error as NodeJS.ErrnoException).code ?? '')) return [];
            throw error;
          }
        };
        const [v4, v6] = await Promise.all([family(resolver.resolve4(host), 4), family(resolver.resolve6(host), 6)]);
        signal?.throwIfAborted();
        return [...v4, ...v6];
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
    },
  };
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
