// An artifact a receipt names, opened from the web view: at most VIEW_BYTES of it, as text.
// Only artifacts a receipt names can be opened, and never an exact copy of workspace state
// (preimages, trees: kept unredacted so that undo restores the file as it was), because those
// are the one kind of artifact that was not redacted when written.
import { open } from 'node:fs/promises';
import { isExactRole } from '../artifacts/index.js';
import { ToolgateError, type ReceiptId } from '../protocol/index.js';
import type { Runtime } from '../runtime/index.js';

export const VIEW_BYTES = 1024 * 1024;

export interface ArtifactView {
  readonly body: Buffer;
  readonly bytes: number;
  readonly truncated: boolean;
}

export async function artifactView(rt: Runtime, receiptId: string, index: number): Promise<ArtifactView> {
  const receipt = await rt.store.getReceipt(receiptId as ReceiptId);
  if (!receipt) throw new ToolgateError('not_found', `no receipt ${receiptId}`, { receipt_id: receiptId });
  const ref = receipt.artifacts[index];
  if (ref === undefined) throw new ToolgateError('not_found', `receipt ${receiptId} has no artifact #${index}`, { receipt_id: receiptId });
  if (isExactRole(ref.role)) {
    throw new ToolgateError('secret_path', `artifact ${ref.role} is an unredacted copy of workspace state and is not shown`, { path: ref.role });
  }
  let handle;
  try {
    handle = await open(rt.artifacts.pathOf(ref.digest), 'r');
  } catch (e) {
    throw new ToolgateError('not_found', `no artifact ${ref.digest}`, { digest: ref.digest }, { cause: e });
  }
  try {
    const buf = Buffer.alloc(Math.min(VIEW_BYTES, ref.bytes));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return { body: buf.subarray(0, bytesRead), bytes: ref.bytes, truncated: ref.bytes > bytesRead };
  } finally {
    await handle.close();
  }
}
