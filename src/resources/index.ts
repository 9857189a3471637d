export { Workspace, type OpenedLeaf } from './paths/workspace.js';
export { walkBeneath, procPath, kindOf, MAX_LINK_HOPS, type ResolvedPath, type Identity, type EntryKind, type WalkOptions } from './paths/open-beneath.js';
export { lexicalComponents, joinComponents, MAX_PATH_BYTES } from './paths/lexical.js';
export { PathClassifier, DEFAULT_SECRET_PATTERNS, DEFAULT_PROTECTED_DIRS, DEFAULT_PROTECTED_FILES, type PathClass } from './paths/classify.js';
export {
  leafStateOf,
  sameLeafState,
  stageFile,
  syncStaged,
  discardTemp,
  recheckSite,
  commitStaged,
  removeAtSite,
  syncDirectories,
  syncFolder,
  writableMode,
  type FileBytes,
  type LeafState,
  type StagedFile,
  type EffectSite,
} from './paths/atomic-replace.js';
export { applyAllOrNothing, asToolgateError, type FileChange, type TransactionResult } from './paths/file-transaction.js';
export { openDirectoryBeneath, assertBeneath, type OpenedDirectory } from './paths/open-directory.js';
export { resolveWriteTarget, resolveStable, openWriteTarget, openWriteTargetPaced, assertWritable, type WriteTarget, type OpenedTarget } from './paths/write-target.js';
export { readAt, readInto } from './paths/read-at.js';
export { openRegular, specialFileError, specialKindOf, READ_FLAGS, type SpecialKind } from './paths/regular-file.js';
export { readAtAsync, forEachChunk, READ_CHUNK, SYNC_READ_MAX } from './paths/read-async.js';
export { renameNoReplace, hasRenameNoReplace } from './paths/renameat2.js';
export { syncFileSystem } from './paths/syncfs.js';
export { libcFunction, lastErrno, errnoError } from './paths/libc.js';
export { Inotify, watchableFileSystem, DIRECTORY_MASK, IN_CLOSE_WRITE, IN_DONT_FOLLOW, IN_ENTRIES, IN_IGNORED, IN_MODIFY, IN_Q_OVERFLOW, IN_SELF } from './paths/inotify.js';
export { secretNameOf, refuseSecretLink, SECRET_LINK_WALK_LIMIT, type LinkedFile } from './paths/secret-links.js';
export { tempName, partName, ownerTag, isToolgateTempName, ownerIsGone } from './paths/temp-name.js';
export { sweepWorkspaceTemps, SWEEP_ENTRY_LIMIT } from './paths/sweep-temps.js';
export { TreePacer, nextTurn, PACE_ENTRIES, PACE_BYTES } from './paths/pacer.js';
export { walkTree, removeTree, buildTree, CREATE_WINDOW, type TreeEntry, type TreeLimits, type RebuildEntry } from './paths/tree.js';
export {
  fileImage,
  changeRecord,
  mutationEvidence,
  storePreimage,
  PreimageBundle,
  postImage,
  putPaced,
  sha256Paced,
  commitFileSet,
  removeCreatedDirs,
  reconcileFileSet,
  openForUndo,
  identityAt,
  removeEmptyDirs,
  usesCrlf,
  type FileImage,
  type ChangeRecord,
  type MutationEvidence,
  type PlannedWrite,
  type CommitResult,
  type MutationContext,
  type MutationReconcileContext,
  type MutationIntent,
  type MutationRevision,
  type MutationVerdict,
  type PreimageStore,
  type FailedCommitOutcome,
  type FileSetOptions,
} from './mutation/index.js';
export { runChild, runCollect, RecordSplitter, type ChildResult, type ChildOptions } from './process/child.js';
export { hasPosixSpawn, spawnChild } from './process/spawn-child.js';
export { AF_UNIX, check as checkLibc, exitOf, posixSpawn, SOCK_STREAM, spawnLibc, WNOHANG, O_CLOEXEC, O_RDONLY, type SpawnLibc } from './process/posix-spawn.js';
export {
  gitArgs,
  runGit,
  splitZ,
  listGitFiles,
  gitLocations,
  trackedEntries,
  readGitStatus,
  parseStatus,
  changedPaths,
  STATUS_ARGV,
  STATUS_ENV,
  MAX_STATUS_BYTES,
  MAX_CHANGED_PATHS,
  type GitFileLists,
  type GitLocations,
  type ConfinedGit,
  type StatusSnapshot,
} from './git/index.js';
export {
  normalizeUrl,
  classifyAddress,
  grantedForm,
  authorizeDestination,
  authorizeRedirect,
  systemResolver,
  dnsServerResolver,
  pinnedLookup,
  pinnedAgent,
  pinnedRequestOptions,
  connectPinned,
  destinationRefused,
  destinationEvidence,
  WEB_SCHEMES,
  GIT_SCHEMES,
  ADDRESS_CLASSES,
  METADATA_ADDRESSES,
  METADATA_NAMES,
  type AddressClass,
  type ClassifiedAddress,
  type Embedding,
  type DestinationUrl,
  type SchemePorts,
  type HostResolver,
  type ResolvedAddress,
  type DnsServerOptions,
  type AuthorizeOptions,
  type AuthorizedDestination,
  type DestinationGrant,
  type AuthorizedRedirect,
  type DestinationRefusal,
  type DestinationEvidence,
} from './net/index.js';
export { shellIntent, argvIntent, type ShellIntent, type ProgramUse, type Unresolved, type RedirectUse, type IntentOptions } from './shell/intent.js';
export { ProgramResolver, SANDBOX_PATH, type ResolvedProgram } from './shell/programs.js';
export { bashParser } from './shell/grammar.js';
export { literalWords } from './shell/parse.js';
export { intentResources, unresolvedOf, type IntentResources } from './shell/intent-resources.js';
