// The input schemas of the Anthropic editor tools, as collected in shared/toolsurf/anthropic-api/
// (the top level of each file, `x-toolsurf` left out). Both tools are schema-less in the API (built
// into the model); over MCP a client needs a description, so str_replace_based_edit_tool gets the
// published str_replace_editor text without undo_edit instead of the facts file's note about it.
// test/profiles/anthropic/schemas.test.ts checks the properties still equal the facts when present.
import type { InputSchema } from '../profile.js';

export const STR_REPLACE_BASED_EDIT_TOOL_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/anthropic-api/str_replace_based_edit_tool.json",
  "title": "str_replace_based_edit_tool",
  "description": "Custom editing tool for viewing, creating and editing files\n* State is persistent across command calls and discussions with the user\n* If `path` is a file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists non-hidden files and directories up to 2 levels deep\n* The `create` command cannot be used if the specified `path` already exists as a file\n* If a `command` generates a long output, it will be truncated and marked with `<response clipped>`\n\nNotes for using the `str_replace` command:\n* The `old_str` parameter should match EXACTLY one or more consecutive lines from the original file. Be mindful of whitespaces!\n* If the `old_str` parameter is not unique in the file, the replacement will not be performed. Make sure to include enough context in `old_str` to make it unique\n* The `new_str` parameter should contain the edited lines that should replace the `old_str`",
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "The command to run.",
      "enum": [
        "view",
        "create",
        "str_replace",
        "insert"
      ]
    },
    "path": {
      "type": "string",
      "description": "Path to the file or directory. Reference implementation requires an absolute path (docs examples use relative paths like 'primes.py')."
    },
    "view_range": {
      "type": "array",
      "items": {
        "type": "integer"
      },
      "description": "view only, files only: [start_line, end_line], 1-indexed, inclusive; end_line -1 = to end of file.",
      "minItems": 2,
      "maxItems": 2
    },
    "old_str": {
      "type": "string",
      "description": "str_replace: text to replace; must match exactly (whitespace, indentation) and exactly one location."
    },
    "new_str": {
      "type": "string",
      "description": "str_replace: replacement text (reference impl treats missing as ''). Older docs/reference impl also use it as the insert payload."
    },
    "file_text": {
      "type": "string",
      "description": "create: content of the new file."
    },
    "insert_line": {
      "type": "integer",
      "description": "insert: line number AFTER which to insert (0 = beginning of file).",
      "minimum": 0
    },
    "insert_text": {
      "type": "string",
      "description": "insert: the text to insert (what Claude 4.x actually emits for text_editor_20250728)."
    }
  },
  "required": [
    "command",
    "path"
  ],
  "additionalProperties": false
};

export const STR_REPLACE_EDITOR_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/anthropic-api/str_replace_editor.json",
  "title": "str_replace_editor",
  "description": "Custom editing tool for viewing, creating and editing files\n* State is persistent across command calls and discussions with the user\n* If `path` is a file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists non-hidden files and directories up to 2 levels deep\n* The `create` command cannot be used if the specified `path` already exists as a file\n* If a `command` generates a long output, it will be truncated and marked with `<response clipped>`\n* The `undo_edit` command will revert the last edit made to the file at `path`\n\nNotes for using the `str_replace` command:\n* The `old_str` parameter should match EXACTLY one or more consecutive lines from the original file. Be mindful of whitespaces!\n* If the `old_str` parameter is not unique in the file, the replacement will not be performed. Make sure to include enough context in `old_str` to make it unique\n* The `new_str` parameter should contain the edited lines that should replace the `old_str`",
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "The commands to run. Allowed options are: `view`, `create`, `str_replace`, `insert`, `undo_edit`.",
      "enum": [
        "view",
        "create",
        "str_replace",
        "insert",
        "undo_edit"
      ]
    },
    "path": {
      "type": "string",
      "description": "Absolute path to file or directory, e.g. `/repo/file.py` or `/repo`."
    },
    "file_text": {
      "type": "string",
      "description": "Required parameter of `create` command, with the content of the file to be created."
    },
    "old_str": {
      "type": "string",
      "description": "Required parameter of `str_replace` command containing the string in `path` to replace."
    },
    "new_str": {
      "type": "string",
      "description": "Optional parameter of `str_replace` command containing the new string (if not given, no string will be added). Required parameter of `insert` command containing the string to insert."
    },
    "insert_line": {
      "type": "integer",
      "description": "Required parameter of `insert` command. The `new_str` will be inserted AFTER the line `insert_line` of `path`."
    },
    "view_range": {
      "type": "array",
      "items": {
        "type": "integer"
      },
      "description": "Optional parameter of `view` command when `path` points to a file. If none is given, the full file is shown. If provided, the file will be shown in the indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to the end of the file."
    }
  },
  "required": [
    "command",
    "path"
  ],
  "additionalProperties": false
};
