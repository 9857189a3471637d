// The `anthropic` profile: the Anthropic API's client tools as a model trained on them calls
// them — str_replace_based_edit_tool (text_editor_20250429/20250728) and the older
// str_replace_editor (text_editor_20250124, with undo_edit) — on Toolgate's fs tools
// (docs/profiles.md) — and bash (bash_20250124) on shell.session.
import type { Profile } from '../profile.js';
import { bashTool } from './bash.js';
import { editorTool } from './editor.js';
import { STR_REPLACE_BASED_EDIT_TOOL_SCHEMA, STR_REPLACE_EDITOR_SCHEMA } from './schemas.js';

export const anthropicProfile: Profile = {
  name: 'anthropic',
  tools: [
    editorTool({ name: 'str_replace_based_edit_tool', schema: STR_REPLACE_BASED_EDIT_TOOL_SCHEMA, undo: false }),
    editorTool({ name: 'str_replace_editor', schema: STR_REPLACE_EDITOR_SCHEMA, undo: true }),
    bashTool,
  ],
  // The reference returns a failure as the error text itself, with is_error set.
  wrapError: (message) => message,
  invalidArguments: (tool, problems) => `Invalid parameters for ${tool}: ${problems.join('; ')}`,
  // computer_use_demo's ToolCollection.run for a name it does not have.
  unknownTool: (name) => `Tool ${name} is invalid`,
};
