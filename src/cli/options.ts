import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command that opens a runtime accepts. */
export const RUNTIME_OPTIONS = {
  workspace: { type: 'string' },
  'state-dir': { type: 'string' },
  config: { type: 'string' },
  'store-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** parseArgs, strict, with its errors turned into usage errors. */
export function parse<O extends Options>(
  argv: readonly string[],
  options: O,
  allowPositionals = true,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: allowPositionals as true, strict: true });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

export function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number`);
  return Number(value);
}
