// The one list of built-in tools. Adding a tool = a folder under src/tools/ and a line here;
// this is the only file that imports a tool folder, and no tool folder imports another.
import { anyTool, type AnyTool } from '../registry/index.js';
import type { ToolchainConfig } from '../sandbox/index.js';
import { createFsRead } from './fs-read/tool.js';
import { createFsSearch } from './fs-search/tool.js';
import { createFsList } from './fs-list/tool.js';
import { createFsWrite } from './fs-write/tool.js';
import { createFsPatch } from './fs-patch/tool.js';
import { createFsDelete } from './fs-delete/tool.js';
import { createFsRename } from './fs-rename/tool.js';
import { createFsUndo } from './undo/tool.js';
import { createShellExec } from './shell-exec/tool.js';
import { createShellSession } from './shell-session/tool.js';
import { createHttpRequest, type HttpRequestOptions } from './http-request/tool.js';
import { configureDestinations, connectorSecretValues } from './http-request/config.js';
import { createGitPush, type GitRemoteOptions } from './git-remote/push.js';
import { createGitFetch } from './git-remote/fetch.js';
import { configureRemotes, gitConnectorSecretValues } from './git-remote/config.js';
import { createBrowserTools } from './browser/index.js';

export { httpConnectorSchema, type HttpConnectorConfig } from './http-request/config.js';
export type { HttpRequestOptions } from './http-request/tool.js';
export { gitConnectorSchema, type GitConnectorConfig } from './git-remote/config.js';
export type { GitRemoteOptions } from './git-remote/push.js';

/** The values the http connector injects (from the environment its configuration names): redacted from everything recorded. */
export function httpConnectorSecrets(o: HttpRequestOptions = {}): string[] {
  return connectorSecretValues(configureDestinations(o.config, o.env ?? process.env));
}

/** The credentials the git connector sends (from the environment its configuration names): redacted from everything recorded. */
export function gitConnectorSecrets(o: GitRemoteOptions = {}): string[] {
  return gitConnectorSecretValues(configureRemotes(o.config, o.env ?? process.env));
}

/** Fresh definitions (each holds its own caches): one set per runtime. */
export function builtinTools(o: { toolchains?: ToolchainConfig; sessionIdleMs?: number; http?: HttpRequestOptions; git?: GitRemoteOptions } = {}): AnyTool[] {
  // fs.undo restores the receipts of the tools in this list whose definition says `undoable`.
  const undoable = new Set<string>();
  const tools = [
    anyTool(createFsRead()),
    anyTool(createFsSearch()),
    anyTool(createFsList()),
    anyTool(createFsWrite()),
    anyTool(createFsPatch()),
    anyTool(createFsDelete()),
    anyTool(createFsRename()),
    anyTool(createFsUndo({ undoable: (tool) => undoable.has(tool) })),
    anyTool(createShellExec({ ...(o.toolchains ? { toolchains: o.toolchains } : {}), ...(o.http?.resolver ? { resolver: o.http.resolver } : {}) })),
    anyTool(createShellSession({ ...(o.toolchains ? { toolchains: o.toolchains } : {}), ...(o.sessionIdleMs !== undefined ? { idleMs: o.sessionIdleMs } : {}) })),
    anyTool(createHttpRequest(o.http ?? {})),
    // One configuration read for both: the same remotes, the same credentials.
    ...gitRemoteTools(o.git ?? {}),
    ...createBrowserTools(o.http?.resolver ? { resolver: o.http.resolver } : {}).tools,
  ];
  for (const t of tools) if (t.undoable) undoable.add(t.name);
  return tools;
}

function gitRemoteTools(o: GitRemoteOptions): AnyTool[] {
  const remotes = configureRemotes(o.config, o.env ?? process.env);
  return [anyTool(createGitPush(o, remotes)), anyTool(createGitFetch(o, remotes))];
}
