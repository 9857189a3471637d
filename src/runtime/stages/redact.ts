import { boundStrings, type ErrorBody, type ReceiptBody, type RedactionNote } from '../../protocol/index.js';
import type { AnyTool, RedactionWindow } from '../../registry/index.js';
import { redact } from '../../redact/index.js';

/** Every field of a receipt that can hold what a call read, ran or was sent. */
type Redactable = Pick<ReceiptBody, 'normalized_action' | 'decision' | 'result' | 'error' | 'partial' | 'evidence' | 'artifacts'>;

/**
 * Field rules, secret rules and exact injected values over the whole receipt body before
 * anything is stored: the result (with the windows a tool gave for strings cut from a larger
 * whole), the error and its data, the normalized action (paths), the decision, the partial
 * effect, the evidence and the artifacts' roles (which name paths). A refusal's strings are
 * bounded too (docs/protocol.md, "Echoed values").
 */
export function redactStage(
  tool: AnyTool | null,
  body: Redactable,
  secrets: readonly string[],
  windows: readonly RedactionWindow[],
): { body: Redactable; notes: RedactionNote[] } {
  const rules = tool?.redaction ?? { fields: [], patterns: true };
  const notes: RedactionNote[] = [];
  const all = <T>(value: T, root: string, fields: readonly string[] = [], patterns = true): T => {
    if (value === null) return value;
    const r = redact(value, { fields, patterns, secrets, windows }, root);
    notes.push(...r.notes);
    return r.value as T;
  };
  return {
    body: {
      normalized_action: all(body.normalized_action, '/normalized_action'),
      decision: all(body.decision, '/decision'),
      result: all(body.result, '/result', rules.fields, rules.patterns),
      error: all(body.error === null ? null : boundStrings<ErrorBody>(body.error), '/error'),
      partial: all(body.partial, '/partial'),
      evidence: all(body.evidence, '/evidence'),
      artifacts: all(body.artifacts, '/artifacts'),
    },
    notes,
  };
}
