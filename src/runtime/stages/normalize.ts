import type { Digest, NormalizedAction, Resource, TaskId } from '../../protocol/index.js';
import type { AnyTool, ReceiptLookup } from '../../registry/index.js';
import type { Workspace } from '../../resources/index.js';

/** Every resource to its canonical identity, before anything is authorized. */
export async function normalizeStage(
  tool: AnyTool,
  args: unknown,
  argsDigest: Digest,
  workspace: Workspace,
  task: TaskId,
  receipts: ReceiptLookup,
  grants: (r: Resource) => Promise<boolean>,
): Promise<{ action: NormalizedAction; prepared: unknown }> {
  const n = await tool.normalize(args as never, { workspace, task_id: task, receipts, grants });
  return {
    action: {
      tool: tool.name,
      tool_version: tool.version,
      effect_class: n.effect_class ?? tool.effect_class,
      resources: n.resources,
      args_digest: argsDigest,
    },
    prepared: n.prepared,
  };
}
