import { digestOf, type NormalizedAction } from '../../protocol/index.js';
import type { AnyTool, ReceiptLookup } from '../../registry/index.js';
import type { Workspace } from '../../resources/index.js';
import type { PolicyEngine } from '../../policy/index.js';
import type { Call } from '../call.js';
import type { Validated } from './validate.js';

export interface NormalizeServices {
  readonly workspace: Workspace;
  readonly receipts: ReceiptLookup;
  readonly policy: Pick<PolicyEngine, 'grantFor'>;
}

/** What normalize hands on: the action to authorize, and the tool's private data for execute. */
export interface Normalized {
  readonly action: NormalizedAction;
  readonly prepared: unknown;
}

/** Every resource to its canonical identity, before anything is authorized. */
export async function normalizeStage(s: NormalizeServices, call: Call, tool: AnyTool, valid: Validated): Promise<Normalized> {
  const task = call.draft.task_id;
  const n = await tool.normalize(valid.args as never, { workspace: s.workspace, task_id: task, receipts: s.receipts, grants: async (r) => (await s.policy.grantFor(task)).covers(r), destinationGrant: () => s.policy.grantFor(task) });
  const action: NormalizedAction = {
    tool: tool.name,
    tool_version: tool.version,
    effect_class: n.effect_class ?? tool.effect_class,
    resources: n.resources,
    args_digest: valid.digest,
    // Only when a tool sets them, so the digest of every other action is unchanged.
    ...(n.tool_digest !== undefined ? { tool_digest: n.tool_digest } : {}),
    ...(n.approval_required ? { approval_required: true as const } : {}),
    ...(n.binding !== undefined ? { binding_digest: digestOf(n.binding) } : {}),
  };
  call.draft.normalized_action = action;
  return { action, prepared: n.prepared };
}
