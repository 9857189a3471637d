export { Workspace, type OpenedLeaf } from './paths/workspace.js';
export { walkBeneath, procPath, kindOf, MAX_LINK_HOPS, type ResolvedPath, type Identity, type EntryKind, type WalkOptions } from './paths/open-beneath.js';
export { lexicalComponents, joinComponents, MAX_PATH_BYTES } from './paths/lexical.js';
export { PathClassifier, DEFAULT_SECRET_PATTERNS, type PathClass } from './paths/classify.js';
