/** Where the proxy's socket is bound inside the sandbox (/run is the sandbox's own tmpfs). */
export const SANDBOX_PROXY_SOCKET = '/run/toolgate/proxy.sock';
/** Where the bridge listens inside the sandbox's own network namespace (empty: the port is free). */
export const BRIDGE_PORT = 3128;

/**
 * The bridge, run by node inside the sandbox as the command's parent: it listens on
 * 127.0.0.1:BRIDGE_PORT, forwards each connection to the proxy's unix socket, starts the command
 * once it listens, and exits with the command's status (a signal as 128+N, as bubblewrap itself
 * reports one), so it lives exactly as long as the command. curl, npm, pip and git take an
 * http:// proxy URL, not a unix socket; this is the one thing the bridge adds. Anthropic's
 * sandbox-runtime runs socat for the same job; socat is not on a fresh Debian, node is what
 * Toolgate already needs, and the bridge holds no privilege the command lacks (the socket is in
 * the command's reach either way: the host-side proxy is the boundary). Dependency-free CommonJS
 * for `node -e`; `process.argv` is [node, socket, port, env to restore, command...].
 */
export const BRIDGE_SOURCE = `'use strict';
const net = require('net');
const { spawn } = require('child_process');
const { constants } = require('os');
const [, socketPath, port, restore, cmd, ...args] = process.argv;
const fail = (status, message) => { process.stderr.write('toolgate network bridge: ' + message + '\\n'); process.exit(status); };
const server = net.createServer({ allowHalfOpen: true }, (c) => {
  const u = net.connect({ path: socketPath, allowHalfOpen: true });
  const drop = () => { c.destroy(); u.destroy(); };
  c.on('error', drop); u.on('error', drop);
  c.pipe(u); u.pipe(c);
  c.on('close', () => u.destroy());
  u.on('close', () => c.end());
});
// A stop signal goes to the whole process group: the command gets it too and takes the grace
// period it always had; the bridge leaves only when the command has (spawn resets the handlers).
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT']) process.on(s, () => {});
server.on('error', (e) => fail(125, 'cannot listen on 127.0.0.1:' + port + ': ' + e.message));
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...JSON.parse(restore) } });
  child.on('error', (e) => fail(127, cmd + ': ' + e.message));
  child.on('exit', (code, signal) => process.exit(code !== null ? code : 128 + (constants.signals[signal] || 0)));
});
`;

/**
 * The command line bubblewrap runs instead of the command. NODE_* variables are unset for the
 * bridge (bubblewrap `--unsetenv`, by `bridgeUnsetenv`) and given back to the command: a
 * NODE_OPTIONS meant for the command (`--require`, a heap size) is not the bridge's.
 */
export function bridgeArgv(node: string, env: Readonly<Record<string, string>>, argv: readonly string[]): string[] {
  const restore = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('NODE_')));
  return [node, '-e', BRIDGE_SOURCE, '--', SANDBOX_PROXY_SOCKET, String(BRIDGE_PORT), JSON.stringify(restore), ...argv];
}

export function bridgeUnsetenv(env: Readonly<Record<string, string>>): string[] {
  return Object.keys(env)
    .filter((k) => k.startsWith('NODE_'))
    .flatMap((k) => ['--unsetenv', k]);
}

/** The variables that send HTTP clients to the bridge; NO_PROXY empty: everything goes through it. */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${BRIDGE_PORT}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
    // npm reads its own settings first (npm_config_*), then these; pip and git read the above.
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    npm_config_noproxy: '',
  };
}
