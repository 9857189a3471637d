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

/** Fresh definitions (each holds its own caches): one set per runtime. */
export function builtinTools(o: { toolchains?: ToolchainConfig; sessionIdleMs?: number } = {}): AnyTool[] {
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
    anyTool(createShellExec(o.toolchains ? { toolchains: o.toolchains } : {})),
    anyTool(createShellSession({ ...(o.toolchains ? { toolchains: o.toolchains } : {}), ...(o.sessionIdleMs !== undefined ? { idleMs: o.sessionIdleMs } : {}) })),
  ];
  for (const t of tools) if (t.undoable) undoable.add(t.name);
  return tools;
}
