// How Chromium is started: under bubblewrap, in its own pid and network namespaces, dying with
// the runtime. Playwright spawns `executablePath` with Chromium's arguments and talks to it over
// fds 3 and 4 (--remote-debugging-pipe); that path is a small shell script (written per session)
// that execs bwrap, so bwrap's parent is the runtime itself and --die-with-parent ties them.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';

/** Where the session's proxy socket directory is bound inside the jail. */
export const JAIL_PROXY_DIR = '/run/toolgate';
export const JAIL_BRIDGE = '/run/toolgate-bridge.cjs';
/** Where the runtime's node binary is bound inside the jail (it runs the bridge). */
export const JAIL_NODE = '/run/toolgate-node';
/** The bridge's port on the jail's own loopback: the only network Chromium has. */
export const JAIL_PROXY_PORT = 3128;

/**
 * The bridge: listens on the jail's 127.0.0.1:JAIL_PROXY_PORT, forwards each connection to the
 * authorizing proxy's unix socket, and starts Chromium once it listens. Chromium cannot take a
 * unix socket as its proxy, and the jail has no other network, so this hop is the only way out.
 * Unlike sandbox/net-proxy's bridge (stdio 0-2), it hands Chromium fds 3 and 4: Playwright's
 * CDP pipe. Dependency-free CommonJS run as a file; argv after node and the file: [socket, port, chromium, ...args].
 */
export const JAIL_BRIDGE_SOURCE = `'use strict';
const net = require('net');
const { spawn } = require('child_process');
const [, , socketPath, port, cmd, ...args] = process.argv;
const server = net.createServer({ allowHalfOpen: true }, (c) => {
  const u = net.connect({ path: socketPath, allowHalfOpen: true });
  const drop = () => { c.destroy(); u.destroy(); };
  c.on('error', drop); u.on('error', drop);
  c.pipe(u); u.pipe(c);
  c.on('close', () => u.destroy());
  u.on('close', () => c.end());
});
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {});
server.on('error', (e) => { process.stderr.write('toolgate browser bridge: ' + e.message + '\\n'); process.exit(125); });
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(cmd, args, { stdio: [0, 1, 2, 3, 4] });
  child.on('error', (e) => { process.stderr.write('toolgate browser bridge: ' + e.message + '\\n'); process.exit(127); });
  child.on('exit', (code) => process.exit(code === null ? 1 : code));
});
`;

export interface JailPaths {
  /** The session's own directory (profile, downloads): the one writable place. */
  readonly sessionDir: string;
  /** The directory holding the proxy's socket. */
  readonly proxyDir: string;
  /** The bridge source file (in sessionDir's parent or beside it), bound read-only. */
  readonly bridgeFile: string;
  /** Hidden behind an empty tmpfs: the runtime's state dir, the workspace. */
  readonly hidden: readonly string[];
  readonly node: string;
  readonly chromium: string;
}

/**
 * bwrap's arguments, each mount answering a threat:
 * - read-only root: the page's renderer exploits aside, Chromium itself writes only its session;
 * - fresh /dev, /proc (own pid namespace: killing its init ends every Chromium process);
 * - tmpfs over /tmp, /run and the home directory: no X11/Wayland/dbus socket (no host
 *   clipboard), no host browser profile, cookies or keyrings;
 * - tmpfs over the state dir and the workspace: the store, artifacts and files are not the page's
 *   to read (uploads pass bytes Toolgate read itself, never a path);
 * - its own network namespace: only loopback, where the bridge to the authorizing proxy listens,
 *   so every request (HTTP, WebSocket, WebRTC, DNS) either goes through the proxy or nowhere.
 */
export function jailArgs(p: JailPaths): string[] {
  const home = homedir();
  // The runtime's own node runs the bridge. It may live where the jail hides (a Node from
  // `npx -p node@24` under the home, a checkout under /tmp): bound read-only at a fixed path.
  const node = realpathSync(p.node);
  const hideHome = home !== '/' && home !== '' ? ['--tmpfs', home] : [];
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    '--tmpfs', '/run',
    ...hideHome,
    ...p.hidden.flatMap((h) => ['--tmpfs', h]),
    '--bind', p.sessionDir, p.sessionDir,
    '--bind', p.proxyDir, JAIL_PROXY_DIR,
    '--ro-bind', p.bridgeFile, JAIL_BRIDGE,
    '--ro-bind', node, JAIL_NODE,
    '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts',
    '--die-with-parent',
    '--clearenv',
    '--setenv', 'PATH', '/usr/bin:/bin',
    '--setenv', 'HOME', p.sessionDir,
    '--setenv', 'TMPDIR', '/tmp',
    '--',
    JAIL_NODE, JAIL_BRIDGE, `${JAIL_PROXY_DIR}/proxy.sock`, String(JAIL_PROXY_PORT), p.chromium,
  ];
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The script Playwright runs as "the browser": exec bwrap (keeping the runtime as its parent) with Chromium's arguments appended. */
export function launcherScript(bwrap: string, args: readonly string[]): string {
  return `#!/bin/sh\nexec ${shellQuote(bwrap)} ${args.map(shellQuote).join(' ')} "$@"\n`;
}

/** Chromium flags Toolgate adds: everything through the jail's bridge, loopback included (Chromium bypasses proxies for loopback unless told `<-loopback>`). */
export function chromiumArgs(): string[] {
  return [
    '--no-sandbox',
    '--disable-dev-shm-usage',
    `--proxy-server=http://127.0.0.1:${JAIL_PROXY_PORT}`,
    '--proxy-bypass-list=<-loopback>',
    '--disable-background-networking',
    '--disable-sync',
    '--no-pings',
  ];
}
