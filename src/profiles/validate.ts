// Checks an agent's arguments against the original's own JSON Schema (the one tools/list
// shows), with zod's JSON Schema reader: the schema listed and the schema enforced are one.
import { z } from 'zod';
import { faultsOf, type Fault } from '../protocol/index.js';
import type { InputSchema, JsonObject } from './profile.js';

export type ArgumentCheck = { readonly ok: true; readonly args: JsonObject } | { readonly ok: false; readonly faults: readonly Fault[] };

export function argumentChecker(schema: InputSchema): (args: unknown) => ArgumentCheck {
  // `$schema`/`$id` are about the document, not the value.
  const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
  const checker = z.fromJSONSchema(rest as Parameters<typeof z.fromJSONSchema>[0]);
  return (args) => {
    const parsed = checker.safeParse(args);
    if (parsed.success) return { ok: true, args: parsed.data as JsonObject };
    return { ok: false, faults: faultsOf(parsed.error) };
  };
}
