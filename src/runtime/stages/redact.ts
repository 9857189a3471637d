import type { ErrorBody, RedactionNote } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';
import { redact } from '../../redact/index.js';

/** Field rules, secret patterns and exact injected values, before anything is stored. */
export function redactStage(
  tool: AnyTool | null,
  result: unknown,
  error: ErrorBody | null,
  secrets: readonly string[],
): { result: unknown; error: ErrorBody | null; notes: RedactionNote[] } {
  const rules = tool?.redaction ?? { fields: [], patterns: true };
  const r = redact(result, { fields: rules.fields, patterns: rules.patterns, secrets }, '/result');
  const e = error === null ? { value: null, notes: [] } : redact(error, { fields: [], patterns: true, secrets }, '/error');
  return { result: r.value, error: e.value as ErrorBody | null, notes: [...r.notes, ...e.notes] };
}
