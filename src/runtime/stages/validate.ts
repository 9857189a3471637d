import { ToolgateError, faultsOf } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';

/** Arguments against the tool's request schema; unknown fields are faults with their pointer. */
export function validateStage(tool: AnyTool, args: unknown): unknown {
  const parsed = tool.args.safeParse(args);
  if (parsed.success) return parsed.data;
  const faults = faultsOf(parsed.error);
  throw new ToolgateError('invalid_arguments', `invalid arguments for ${tool.key}: ${faults.map((f) => `${f.pointer || '/'} ${f.message}`).join('; ')}`, {
    tool: tool.name,
    faults,
  });
}
