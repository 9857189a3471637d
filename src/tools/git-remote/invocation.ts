// How git is started for a remote: which URL it is given, which configuration it reads, and
// which environment it sees. Pure: the threats each setting answers are next to it, and
// test/tools/git-remote/invocation.test.ts checks the list.
import type { AuthorizedDestination } from '../../resources/index.js';

/**
 * The URL git dials. git:// gets the authorized address in place of the name, so git never
 * resolves anything (its `host=` line then names the address: a daemon's virtual hosting by name
 * is lost, which `--interpolated-path` users must know). http(s) keeps the name, for the Host
 * header, SNI and certificate check, and curl is told the address (`pinnedConfig`).
 */
export function dialUrl(d: AuthorizedDestination): string {
  if (d.scheme !== 'git') return d.url;
  const u = new URL(d.url);
  const a = d.connectTo;
  u.hostname = a.family === 6 ? `[${a.address}]` : a.address;
  u.port = String(d.port);
  return u.href;
}

/** `-c` entries for one run, passed through GIT_CONFIG_COUNT (never argv: /proc/PID/cmdline is world-readable). */
export function pinnedConfig(d: AuthorizedDestination, header: string | null): [string, string][] {
  const scheme = d.scheme;
  const entries: [string, string][] = [
    // Only the declared transport: no ext:: (runs a command), file::, fd::, ssh, or a redirect to another scheme.
    ['protocol.allow', 'never'],
    [`protocol.${scheme}.allow`, 'always'],
    // No hook of the workspace or a template runs on the host (pre-push, reference-transaction, …).
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    // Credentials only from configuration: no helper asks a keyring, a store file or a person.
    ['credential.helper', ''],
    ['core.askPass', ''],
    // No repack or prune of the workspace's objects from a repository that holds none of its refs.
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['fetch.writeCommitGraph', 'false'],
    ['fetch.recurseSubmodules', 'false'],
    ['push.recurseSubmodules', 'no'],
    ['submodule.recurse', 'false'],
    ['push.gpgSign', 'false'],
    ['transfer.fsckObjects', 'true'],
  ];
  if (scheme === 'http' || scheme === 'https') {
    entries.push(
      // An empty proxy is curl's "no proxy", whatever the environment says (it holds none anyway).
      ['http.proxy', ''],
      // A redirect would be a new destination nobody authorized: refused, not followed.
      ['http.followRedirects', 'false'],
      ['http.sslVerify', 'true'],
      ['http.cookieFile', ''],
      ['http.emptyAuth', 'false'],
      // curl connects to the authorized address for this host:port and never asks DNS.
      ['http.curloptResolve', `${d.host}:${d.port}:${d.connectTo.family === 6 ? `[${d.connectTo.address}]` : d.connectTo.address}`],
    );
    if (header !== null) entries.push(['http.extraHeader', header]);
  }
  return entries;
}

/**
 * A fresh environment: nothing of the host's GIT_*, proxy or credential variables. HOME and XDG
 * point at the call's empty directory and the system and global files are off, so no user or
 * system config (url.*.insteadOf, http.proxy, a credential helper) applies either.
 */
export function gitEnvironment(o: {
  readonly home: string;
  readonly gitDir: string;
  readonly objects: string | null;
  readonly scheme: string;
  readonly config: readonly (readonly [string, string])[];
  readonly path: string;
}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: o.path,
    HOME: o.home,
    XDG_CONFIG_HOME: o.home,
    LC_ALL: 'C',
    GIT_DIR: o.gitDir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: o.scheme,
    GIT_PROTOCOL_FROM_USER: '0',
    // curl reads these too: `*` means "no host goes through a proxy".
    NO_PROXY: '*',
    no_proxy: '*',
    GIT_CONFIG_COUNT: String(o.config.length),
  };
  if (o.objects !== null) env.GIT_OBJECT_DIRECTORY = o.objects;
  o.config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}
