export { ArtifactStore } from './store.js';
