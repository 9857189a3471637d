// The one list of built-in tools. Adding a tool = a folder under src/tools/ and a line here.
import type { AnyTool } from '../registry/index.js';
import { createFsRead } from './fs-read/tool.js';
import { createShellExec } from './shell-exec/tool.js';

/** Fresh definitions (each holds its own caches): one set per runtime. */
export function builtinTools(): AnyTool[] {
  return [createFsRead() as unknown as AnyTool, createShellExec() as unknown as AnyTool];
}
