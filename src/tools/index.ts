// The one list of built-in tools. Adding a tool = a folder under src/tools/ and a line here.
import { anyTool, type AnyTool } from '../registry/index.js';
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
    anyTool(createFsRead()),
    anyTool(createFsSearch()),
    anyTool(createFsWrite()),
    anyTool(createFsPatch()),
    anyTool(createFsDelete()),
    anyTool(createFsRename()),
    anyTool(createFsUndo()),
    anyTool(createShellExec()),
  ];
}
