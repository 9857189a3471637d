// One span per call, `execute_tool {tool}`, with a child per stage: the OpenTelemetry GenAI
// semantic conventions for tool execution (gen_ai.operation.name = execute_tool, gen_ai.tool.*;
// span kind INTERNAL), plus toolgate.* attributes taken from the committed receipt. The spans are
// built after the call from the stage clock's marks, with their real start and end times: the
// pipeline carries no span, and with no tracer provider registered the one no-op span this
// makes costs next to nothing (docs/operating.md). Everything a span says passes through the
// receipt's redaction (the exact secret values and the detector) before the tracer sees it.
import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { redact } from '../redact/index.js';
import type { EndedCall } from './observe.js';
import type { StageTime } from './stage-clock.js';

/** The GenAI conventions' names (kept here as strings: the package marks its gen_ai constants experimental). */
const GEN_AI = {
  operation: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
} as const;
const EXECUTE_TOOL = 'execute_tool';
/** `extension`: a tool run on the agent's side against real systems (the conventions' own distinction from a client-side `function`). */
const TOOL_TYPE = 'extension';

const epoch = (t: number): number => performance.timeOrigin + t;

/** Statuses that are not a failure of the span. */
const OK = new Set(['succeeded', 'accepted_async']);

function rootAttributes(ended: EndedCall, description: string | null): Attributes {
  const r = ended.receipt;
  const a: Attributes = {
    [GEN_AI.operation]: EXECUTE_TOOL,
    [GEN_AI.toolName]: r.tool,
    [GEN_AI.toolType]: TOOL_TYPE,
    'toolgate.task.id': r.task_id,
    'toolgate.attempt.id': r.attempt_id,
    'toolgate.status': r.status,
    'toolgate.truncated': r.truncated,
    'toolgate.queued_ms': r.queued_ms,
    'toolgate.duration_ms': ended.end - ended.start,
    'toolgate.artifacts.count': r.artifacts.length,
    'toolgate.artifacts.bytes': r.artifacts.reduce((n, x) => n + x.bytes, 0),
    'toolgate.redactions': r.redactions.reduce((n, x) => n + x.count, 0),
  };
  if (description !== null) a[GEN_AI.toolDescription] = description;
  if (r.receipt_id !== undefined) {
    // The receipt id is the call's id as Toolgate answers it (MCP `_meta`): the one to look up.
    a[GEN_AI.toolCallId] = r.receipt_id;
    a['toolgate.receipt.id'] = r.receipt_id;
  }
  if (r.replay !== undefined) a['toolgate.replay'] = r.replay;
  if (r.tool_version !== null) a['toolgate.tool.version'] = r.tool_version;
  if (r.error !== null) {
    a['error.type'] = r.error.code;
    a['toolgate.error.code'] = r.error.code;
  }
  const action = r.normalized_action;
  if (action !== null) a['toolgate.effect_class'] = action.effect_class;
  if (r.decision !== null) {
    a['toolgate.decision.outcome'] = r.decision.outcome;
    a['toolgate.policy.version'] = r.decision.policy_version;
  }
  if (r.idempotency_key !== null) a['toolgate.idempotency_key'] = r.idempotency_key;
  if (r.origin !== undefined) {
    a['toolgate.origin.profile'] = r.origin.profile;
    a['toolgate.origin.tool'] = r.origin.tool;
  }
  return a;
}

/** The stage a failed call stopped in: the last one before redact and commit (or commit itself, when the store failed). */
function failedStage(ended: EndedCall): StageTime | undefined {
  const { status, error } = ended.receipt;
  if (OK.has(status)) return undefined;
  if (error?.code === 'store_unavailable') return ended.stages.at(-1);
  return ended.stages.findLast((s) => s.stage !== 'redact' && s.stage !== 'commit');
}

/** What a span says, redacted as one value: the tool's name goes into the span's name too. */
interface SpanText {
  readonly tool: string;
  readonly attributes: Attributes;
  readonly event: Attributes | null;
}

export function traceCall(tracer: Tracer, parent: Context, ended: EndedCall, secrets: readonly string[], description: string | null): void {
  const root = tracer.startSpan(EXECUTE_TOOL, { kind: SpanKind.INTERNAL, startTime: epoch(ended.start) }, parent);
  if (!root.isRecording()) {
    root.end();
    return;
  }
  const r = ended.receipt;
  const raw: SpanText = {
    tool: r.tool,
    attributes: rootAttributes(ended, description),
    event: r.error === null ? null : { 'error.type': r.error.code, 'toolgate.error.message': r.error.message },
  };
  const text = redact(raw, { fields: [], patterns: true, secrets }, '/span').value as SpanText;
  // An envelope that did not parse names no tool.
  root.updateName(text.tool === '' ? EXECUTE_TOOL : `${EXECUTE_TOOL} ${text.tool}`);
  root.setAttributes(text.attributes);
  const failed = failedStage(ended);
  if (failed !== undefined) root.setStatus({ code: SpanStatusCode.ERROR, message: r.error?.code ?? r.status });
  if (text.event !== null) root.addEvent('toolgate.error', text.event, epoch(ended.end));
  const ctx = trace.setSpan(parent, root);
  for (const s of ended.stages) {
    const span = tracer.startSpan(`toolgate.${s.stage}`, { kind: SpanKind.INTERNAL, startTime: epoch(s.start), attributes: { 'toolgate.stage': s.stage } }, ctx);
    if (s === failed) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: r.error?.code ?? r.status });
      if (r.error !== null) span.setAttribute('error.type', r.error.code);
    }
    span.end(epoch(s.end));
  }
  root.end(epoch(ended.end));
}
