import type { ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { reconcileFileSet } from '../../resources/index.js';

/** fs.write: the file at its post-image → completed, at its pre-image → released. */
export function reconcileFsWrite(ctx: ReconcileContext): Promise<ReconcileVerdict> {
  return reconcileFileSet(ctx, { withoutIntent: 'released', preimageMeansReleased: true });
}
