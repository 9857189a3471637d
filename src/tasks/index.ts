// Subtasks (docs/tasks.md): bounded delegation with attenuated grants, budgets charged to the
// parent, a git worktree per child, and results merged back with conflict detection.
export { TaskBoard, tokenDigest, type SpawnSpec, type Spawned } from './board.js';
export { taskSettings, tasksConfigShape, type TasksConfig, type TaskSettings } from './config.js';
export { TASK_STATES, isTerminal, type Subtask, type SubtaskRecord, type TaskState, type TaskResult, type MergeOutcome } from './record.js';
export { taskTools } from './tools/index.js';
export { watchSubtask, type SubtaskWatch } from './watch.js';
export { checkTaskLinks, type TaskLinkReport } from './links.js';
