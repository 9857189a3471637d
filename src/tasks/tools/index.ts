// The five task tools, bound to one runtime's board: spawn, wait, cancel and result for a
// parent, complete for a child.
import { anyTool, type AnyTool } from '../../registry/index.js';
import type { TaskBoard } from '../board.js';
import { createTaskCancel } from './cancel.js';
import { createTaskComplete } from './complete.js';
import { createTaskResult } from './result.js';
import { createTaskSpawn } from './spawn.js';
import { createTaskWait } from './wait.js';

export function taskTools(board: TaskBoard): AnyTool[] {
  return [anyTool(createTaskSpawn(board)), anyTool(createTaskWait(board)), anyTool(createTaskCancel(board)), anyTool(createTaskResult(board)), anyTool(createTaskComplete(board))];
}
