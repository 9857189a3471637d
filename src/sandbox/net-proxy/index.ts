// The network of `shell.exec` with `network: allowlist` (docs/network.md#shellexec-allowlist).
export { NetProxy, type NetProxyOptions } from './proxy.js';
export { DEFAULT_PROXY_LIMITS, networkReportSchema, proxyConnectionSchema, type NetProxyLimits, type NetworkReport, type ProxyConnection } from './report.js';
export { BRIDGE_PORT, SANDBOX_PROXY_SOCKET, bridgeArgv, bridgeUnsetenv, proxyEnv } from './bridge.js';
export { parseRequestHead, upstreamHead, type RequestHead } from './request-head.js';
