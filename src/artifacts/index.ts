export { ArtifactStore, isExactRole } from './store.js';
export { sweepArtifactParts } from './sweep.js';
export { openArtifacts, type ArtifactLocation } from './location.js';
