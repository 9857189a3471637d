import type { ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { reconcileFileSet } from '../../resources/index.js';

/** fs.patch: every file at its post-image → completed, every one at its pre-image → released. */
export function reconcileFsPatch(ctx: ReconcileContext): Promise<ReconcileVerdict> {
  return reconcileFileSet(ctx, { withoutIntent: 'released', preimageMeansReleased: true });
}
