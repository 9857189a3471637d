// The question an approver sees in their MCP client: the normalized action the approval binds
// (paths as resolved beneath the workspace, each program a shell line runs as parsed, hosts as
// resolved), never the model's raw arguments, which may say something else than what would run.
import type { NormalizedAction, Resource } from '../protocol/index.js';
import type { ApprovalRecord } from '../policy/index.js';

/** The key of the one input request an approval question makes (`inputRequests.approval`). */
export const APPROVAL_INPUT_KEY = 'approval';

/** The form: one explicit choice, no default, so that an empty accept approves nothing. */
function approvalFormSchema(): { type: 'object'; properties: { decision: { type: 'string'; title: string; description: string; enum: string[] } }; required: string[] } {
  return {
    type: 'object',
    properties: {
      decision: {
        type: 'string',
        title: 'Decision',
        description: 'approve runs exactly the action shown, once approved, until the approval expires; deny refuses it',
        enum: ['approve', 'deny'],
      },
    },
    required: ['decision'],
  };
}

const MAX_RESOURCES = 20;
const MAX_FIELD_CHARS = 200;

function clip(s: string): string {
  return s.length > MAX_FIELD_CHARS ? `${s.slice(0, MAX_FIELD_CHARS)}… (${s.length} chars)` : s;
}

function resourceLine(r: Resource): string {
  switch (r.kind) {
    case 'path':
      return `${r.access} path ${clip(r.path)}`;
    case 'host':
      return `connect to host ${clip(r.host)}${r.port === null ? '' : `:${r.port}`}`;
    case 'ref':
      return `${r.access} git ref ${clip(r.ref)}`;
    case 'resource':
      return `${r.access} ${clip(r.system)} ${clip(r.type)} ${clip(r.id)}`;
    case 'program': {
      const marks = [
        r.unresolved !== null ? `UNRESOLVED: ${clip(r.unresolved)}` : null,
        r.wrappers.length > 0 ? `under ${r.wrappers.map(clip).join(' > ')}` : null,
        r.runs_code ? 'runs given code' : null,
        r.has_network_flags ? 'network flags' : null,
        r.system ? null : 'a workspace file',
      ].filter((m): m is string => m !== null);
      const argv = [r.name, ...r.args].map(clip).join(' ');
      return `run program ${clip(r.path ?? r.name)}: ${argv}${marks.length > 0 ? ` (${marks.join('; ')})` : ''}`;
    }
  }
}

/** The action as lines a person can check. */
export function actionLines(action: NormalizedAction): string[] {
  const lines = [`${action.tool} ${action.tool_version} (effect: ${action.effect_class})`];
  for (const r of action.resources.slice(0, MAX_RESOURCES)) lines.push(`  - ${resourceLine(r)}`);
  if (action.resources.length > MAX_RESOURCES) lines.push(`  - … and ${action.resources.length - MAX_RESOURCES} more resources`);
  if (action.tool_digest !== undefined) lines.push(`  upstream tool declaration ${action.tool_digest}`);
  return lines;
}

/** The elicitation message: what the approval binds, why it is asked, and for how long it holds. */
export function approvalMessage(approval: ApprovalRecord): string {
  return [
    `Toolgate asks a person to approve this action (approval ${approval.id}, task ${approval.task_id}):`,
    ...actionLines(approval.action),
    `Why: ${approval.reasons.join('; ') || 'policy requires approval'}`,
    `Action digest ${approval.action_digest}; the approval covers exactly this action in this task, under policy ${approval.policy_version.slice(0, 19)}, until ${new Date(approval.expires_at).toISOString()}.`,
  ].join('\n');
}

/** Form-mode elicitation params (2025-11-25 `elicitation/create`, and embedded in 2026-07-28 `inputRequests`). */
export function approvalElicitation(approval: ApprovalRecord): { mode: 'form'; message: string; requestedSchema: ReturnType<typeof approvalFormSchema> } {
  return { mode: 'form', message: approvalMessage(approval), requestedSchema: approvalFormSchema() };
}

/**
 * What a person answered: an accept that says `approve` approves, one that says `deny` and a
 * decline deny; a cancel, no answer, or an accept without a valid decision (a client that did
 * not show the form) decide nothing: the approval stays pending and the call is refused.
 */
export function answerOf(response: { readonly action?: unknown; readonly content?: unknown } | undefined): 'approve' | 'deny' | null {
  if (response === undefined) return null;
  switch (response.action) {
    case 'accept': {
      const c = response.content;
      const decision = typeof c === 'object' && c !== null ? (c as Record<string, unknown>)['decision'] : undefined;
      return decision === 'approve' || decision === 'deny' ? decision : null;
    }
    case 'decline':
      return 'deny';
    default:
      return null;
  }
}
