// The one list of built-in tools. Adding a tool = a folder under src/tools/ and a line here.
import type { AnyTool } from '../registry/index.js';
import { createFsRead } from './fs-read/tool.js';
import { createFsSearch } from './fs-search/tool.js';
import { createFsWrite } from './fs-write/tool.js';
import { createFsPatch } from './fs-patch/tool.js';
import { createFsDelete } from './fs-delete/tool.js';
import { createFsRename } from './fs-rename/tool.js';
import { createFsUndo } from './undo/tool.js';
import { createShellExec } from './shell-exec/tool.js';

/** Fresh definitions (each holds its own caches): one set per runtime. */
export function builtinTools(): AnyTool[] {
  return [
    createFsRead() as unknown as AnyTool,
    createFsSearch() as unknown as AnyTool,
    createFsWrite() as unknown as AnyTool,
    createFsPatch() as unknown as AnyTool,
    createFsDelete() as unknown as AnyTool,
    createFsRename() as unknown as AnyTool,
    createFsUndo() as unknown as AnyTool,
    createShellExec() as unknown as AnyTool,
  ];
}
