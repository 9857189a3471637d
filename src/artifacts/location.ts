// Where a runtime keeps its content-addressed artifacts (outputs, pre-images for undo and
// reconcile). Hosts that share one database must share this too: an undo or a reconcile on host
// B reads the pre-image host A wrote.
import { isAbsolute, join } from 'node:path';
import { StartupError } from '../protocol/index.js';
import { hostIdentity } from '../store/index.js';
import { ArtifactStore, type ArtifactStoreOptions } from './store.js';

export type ArtifactLocation =
  /** `<state dir>/artifacts` (default): one host. */
  | { readonly kind: 'state_dir' }
  /** A folder every host reaches at the same path (NFS, a shared volume). */
  | { readonly kind: 'folder'; readonly path: string };

/** Opens the artifact store a location names. A shared folder gets per-host parts (ArtifactStoreOptions.sharedBy). */
export function openArtifacts(location: ArtifactLocation, stateDir: string, opts: Omit<ArtifactStoreOptions, 'sharedBy'> = {}): ArtifactStore {
  switch (location.kind) {
    case 'state_dir':
      return new ArtifactStore(join(stateDir, 'artifacts'), opts);
    case 'folder':
      if (!isAbsolute(location.path)) throw new StartupError('usage', `the artifacts folder must be an absolute path: ${JSON.stringify(location.path.slice(0, 200))}`);
      return new ArtifactStore(location.path, { ...opts, sharedBy: hostIdentity() });
  }
}
