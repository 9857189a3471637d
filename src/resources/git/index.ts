// git, read-only, for the tools: the safe argv (args), host runs whose output is data (run,
// ls-files, locations, tracked), and status parsing with a runner the caller confines (status).
export { gitArgs } from './args.js';
export { runGit, splitZ } from './run.js';
export { listGitFiles, type GitFileLists } from './ls-files.js';
export { gitLocations, type GitLocations } from './locations.js';
export { trackedEntries } from './tracked.js';
export {
  readGitStatus,
  parseStatus,
  changedPaths,
  STATUS_ARGV,
  STATUS_ENV,
  MAX_STATUS_BYTES,
  MAX_CHANGED_PATHS,
  type ConfinedGit,
  type StatusSnapshot,
} from './status.js';
