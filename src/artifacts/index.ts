export { ArtifactStore } from './store.js';
export { sweepArtifactParts } from './sweep.js';
