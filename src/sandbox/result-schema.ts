// The parts of a command's result that the sandbox reports, as schemas: shell.exec and
// shell.session both put them in their strict results.
import { z } from 'zod';

const artifactRef = z.strictObject({ digest: z.string(), bytes: z.number().int(), media_type: z.string(), role: z.string() });

/** A StreamSummary: the bounded preview, byte and line counts, and the artifact of the whole stream. */
export const streamSummarySchema = z.strictObject({
  preview: z.string(),
  bytes: z.number().int(),
  omitted_bytes: z.number().int(),
  /** Lines of the recorded stream, and those the preview leaves out whole (shell.exec 1.1.0). */
  lines: z.number().int(),
  omitted_lines: z.number().int(),
  artifact: artifactRef.nullable(),
});

/** An IsolationReport. */
export const isolationReportSchema = z.strictObject({
  level: z.enum(['bwrap', 'process']),
  network: z.enum(['none', 'host', 'allowlist']),
  workspace: z.enum(['read-write', 'read-only']),
  capabilities: z.enum(['none', 'inherited']),
  uid: z.number().int(),
});

export { artifactRef as artifactRefSchema };
