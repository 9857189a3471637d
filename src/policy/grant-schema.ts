import { z } from 'zod';
import { grantFileShape } from './grant.js';

export const GRANT_SCHEMA_ID = 'https://toolgate.dev/schemas/grant.schema.json';

/** The JSON Schema of the grant file, derived from the parser so the two cannot drift (schemas/grant.schema.json). */
export function grantJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(grantFileShape, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { $id: GRANT_SCHEMA_ID, title: 'Toolgate grant', ...schema };
}
