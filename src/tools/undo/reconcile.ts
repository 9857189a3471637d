import type { ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { reconcileFileSet } from '../../resources/index.js';

/**
 * fs.undo: its renames and tree restores record no intent, and may precede its file set; so
 * only "every restored file is at its post-image" settles it (completed). Anything else is for
 * an operator: finding the pre-images does not prove that an earlier step did not run.
 */
export function reconcileFsUndo(ctx: ReconcileContext): Promise<ReconcileVerdict> {
  return reconcileFileSet(ctx, { withoutIntent: 'unknown', preimageMeansReleased: false });
}
