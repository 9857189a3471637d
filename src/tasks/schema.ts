// A subtask's output schema (JSON Schema, given to task.spawn) and the check of a conclusion
// against it. Zod's own JSON Schema reader (z.fromJSONSchema, already a dependency) compiles it:
// no second validator, and its faults come out as the JSON pointers every other refusal uses.
import { z } from 'zod';
import { canonicalJson, faultsOf, ToolgateError } from '../protocol/index.js';

/** Compiles the schema; a schema zod cannot read is `invalid_task_result` (`invalid_schema`). */
export function compileOutputSchema(schema: Readonly<Record<string, unknown>>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (e) {
    throw new ToolgateError('invalid_task_result', `output_schema is not a usable JSON Schema: ${(e as Error).message}`, {
      reason: 'invalid_schema',
      faults: [{ pointer: '/output_schema', message: (e as Error).message.slice(0, 400) }],
    });
  }
}

/** Checks a conclusion against the schema and its size bound; returns its canonical size. */
export function checkConclusion(schema: Readonly<Record<string, unknown>>, conclusion: unknown, maxBytes: number): number {
  const parsed = compileOutputSchema(schema).safeParse(conclusion);
  if (!parsed.success) {
    throw new ToolgateError('invalid_task_result', 'the result does not match the output schema of the subtask', {
      reason: 'schema_mismatch',
      faults: faultsOf(parsed.error).map((f) => ({ ...f, pointer: `/result${f.pointer}` })),
    });
  }
  const bytes = Buffer.byteLength(canonicalJson(conclusion));
  if (bytes > maxBytes) throw new ToolgateError('limit_exceeded', `the result is ${bytes} bytes of JSON; the limit is ${maxBytes}`, { size: bytes, limit: maxBytes });
  return bytes;
}
