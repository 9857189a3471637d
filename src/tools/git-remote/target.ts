// The remote a call names, authorized: a configured name or a URL, normalized, its host checked
// against the grant, resolved once, every address classified (resources/net, as http.request).
import { ToolgateError } from '../../protocol/index.js';
import { authorizeDestination, destinationEvidence, type DestinationGrant, type HostResolver } from '../../resources/index.js';
import { GIT_REMOTE_SCHEMES, remoteForUrl, remoteNamed, type ConfiguredRemote } from './config.js';
import { RemoteConnection } from './connection.js';
import type { GitPushResult } from './schema.js';

export interface RemoteTarget {
  readonly connection: RemoteConnection;
  readonly configured: ConfiguredRemote | null;
  /** The host as the grant's globs see it. */
  readonly host: string;
}

export async function authorizeRemote(tool: string, remote: string, remotes: readonly ConfiguredRemote[], grant: DestinationGrant, resolver: HostResolver): Promise<RemoteTarget> {
  let url = remote;
  let configured: ConfiguredRemote | null = null;
  if (!remote.includes(':')) {
    const named = remoteNamed(remotes, remote);
    if (named?.url == null) {
      throw new ToolgateError('connector_not_configured', `no remote named ${JSON.stringify(remote.slice(0, 64))} in connectors.git.remotes`, { tool, url: remote, host: '', method: 'git', reason: 'unknown_remote' });
    }
    configured = named;
    url = named.url;
  }
  const destination = await authorizeDestination(url, { schemes: GIT_REMOTE_SCHEMES, grant, resolver });
  configured ??= remoteForUrl(remotes, destination.url) ?? null;
  const host = destination.hostKind === 'ipv6' ? `[${destination.host}]` : destination.host;
  // The header goes to an http(s) remote only (git:// has no headers); never into argv.
  const header = destination.scheme === 'git' ? null : (configured?.header ?? null);
  return { connection: new RemoteConnection(destination, header, configured?.secrets ?? []), configured, host };
}

export function evidenceOf(c: RemoteConnection): GitPushResult['destination'] {
  const e = destinationEvidence(c.destination);
  return { ...e, addresses: e.addresses.map((a) => ({ ...a })) };
}
