// The `openhands` profile: OpenHands' CodeActAgent (V0) tools on Toolgate's — str_replace_editor
// (the Anthropic schema plus `security_risk`, with openhands-aci's strings: the editor's
// OpenHands dialect) and execute_bash on shell.session — docs/profiles.md.
import { OPENHANDS_DIALECT } from '../anthropic/dialect.js';
import { editorTool } from '../anthropic/editor.js';
import { STR_REPLACE_EDITOR_SCHEMA } from '../anthropic/schemas.js';
import type { InputSchema, Profile } from '../profile.js';
import { executeBashTool } from './execute-bash.js';
import { SECURITY_RISK } from './security-risk.js';

const properties = STR_REPLACE_EDITOR_SCHEMA['properties'] as Readonly<Record<string, unknown>>;

export const OPENHANDS_EDITOR_SCHEMA: InputSchema = {
  ...STR_REPLACE_EDITOR_SCHEMA,
  $id: 'toolsurf/openhands/str_replace_editor.json',
  properties: { ...properties, security_risk: SECURITY_RISK },
  required: ['command', 'path', 'security_risk'],
};

export const openhandsProfile: Profile = {
  name: 'openhands',
  tools: [executeBashTool, editorTool({ name: 'str_replace_editor', schema: OPENHANDS_EDITOR_SCHEMA, undo: true, dialect: OPENHANDS_DIALECT })],
  // OpenHands' runtime shows an error observation as `ERROR:` and the message.
  wrapError: (message) => `ERROR:\n${message}`,
  invalidArguments: (tool, problems) => `Invalid parameters for ${tool}: ${problems.join('; ')}`,
  // The facts record no wording of OpenHands' own for these two: Toolgate's.
  unknownTool: (name) => `unknown tool ${name}`,
};
