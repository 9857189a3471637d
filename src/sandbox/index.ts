// Process supervision for shell.exec: bubblewrap profiles, rlimits, cgroups, output capture,
// cancellation. docs/shell.md describes the lifecycle and the output protocol.
export { Sandbox, HOST_CODE_ENTRIES, type SandboxOptions, type RunRequest, type RunResult, type IsolationReport, type IsolationLevel } from './sandbox.js';
export { DEFAULT_LIMITS, MAX_LIMITS, withDefaults, type ResourceLimits, type LimitsRequest, type LimitInForce, type LimitsInForce, type Enforcer } from './limits.js';
export { bwrapArgs, defaultHomes, systemSecrets, type NetworkMode, type SandboxProfile } from './profile.js';
export { omissionMarker, type StreamSummary, type StreamName } from './stream-capture.js';
export { SecretFilter } from './secret-filter.js';
export type { ExitReason, OutputChunk } from './supervise.js';
export { sandboxDoctor, type DoctorCheck } from './doctor.js';
export { resolveCommand, shellQuote } from './command.js';
export type { Host } from './host.js';
export { scanWorkspace, scanWorkspacePaced, SCAN_SLICE, ScanCache, NO_WORKSPACE_MOUNTS, DEFAULT_SCAN_LIMITS, type WorkspaceMounts, type ScanLimits, type ScanOptions } from './workspace-scan.js';
export { isPlaceholder } from './placeholder.js';
export { GIT_TIMEOUT_MS, gitInSandbox, memoryWriter } from './confined-git.js';
export { gitStatus, heldGitStatus, type HeldStatus } from './git-status.js';
export { CREDENTIAL_STORES, DEFAULT_TOOLCHAINS, checkToolchainConfig, resolveToolchains, type Toolchain, type ToolchainConfig, type ToolchainUse } from './toolchains.js';
export { sandboxCache, type SandboxDefaults, type Classifier } from './sandbox-cache.js';
export { streamSummarySchema, isolationReportSchema, artifactRefSchema } from './result-schema.js';
export { SandboxSession, type SessionOpenRequest, type SessionEnd, type SessionEndReason } from './session.js';
export { SessionCommand, type CommandSpec, type CommandEnd, type CommandEndReason, type ControlKey, type Segment } from './session-command.js';
export { envChanges, type DriverReport, type EnvChanges } from './session-driver.js';
export { supervise, type SuperviseSpec, type Supervised } from './supervise.js';
export { NetProxy, networkReportSchema, proxyConnectionSchema, DEFAULT_PROXY_LIMITS, type NetProxyOptions, type NetProxyLimits, type NetworkReport, type ProxyConnection } from './net-proxy/index.js';
export { sweepDeadOwners } from './process-table.js';
