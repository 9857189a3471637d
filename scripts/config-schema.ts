// Prints the JSON Schema of toolgate.config.json (kept in schemas/config.schema.json; a test
// checks the two agree). Run: npx tsx scripts/config-schema.ts > schemas/config.schema.json
import { z } from 'zod';
import { configSchema } from '../src/cli/config.js';

const schema = { ...z.toJSONSchema(configSchema, { io: 'input' }), $id: 'https://toolgate.dev/schemas/config.schema.json', title: 'toolgate.config.json' };
process.stdout.write(JSON.stringify(schema, null, 2) + '\n');
