import { ToolgateError, digestOf, faultsOf, type Digest } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';

/** A call's arguments, typed by the tool's schema, and their digest. */
export interface Validated {
  readonly args: unknown;
  readonly digest: Digest;
}

/**
 * Arguments against the tool's request schema; unknown fields are faults with their pointer.
 * Returns the typed arguments and their digest (RFC 8785), which refuses what canonical JSON
 * cannot carry, such as a lone UTF-16 surrogate.
 */
export function validateStage(tool: AnyTool, args: unknown): Validated {
  const parsed = tool.args.safeParse(args);
  if (parsed.success) {
    try {
      return { args: parsed.data, digest: digestOf(parsed.data) };
    } catch (e) {
      throw new ToolgateError('invalid_arguments', `arguments have no canonical JSON form: ${(e as Error).message}`, {
        tool: tool.name,
        faults: [{ pointer: '', message: (e as Error).message }],
      });
    }
  }
  const faults = faultsOf(parsed.error);
  throw new ToolgateError('invalid_arguments', `invalid arguments for ${tool.key}: ${faults.map((f) => `${f.pointer || '/'} ${f.message}`).join('; ')}`, {
    tool: tool.name,
    faults,
  });
}
