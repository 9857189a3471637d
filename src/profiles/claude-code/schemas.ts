// The input schemas and descriptions of Claude Code's tools, as collected in shared/toolsurf/claude-code/
// (the top level of each file; the `x-toolsurf` facts block left out). Generated once from those files;
// test/profiles/claude-code/schemas.test.ts checks they still equal them when the facts are present.
import type { InputSchema } from '../profile.js';

export const READ_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/Read.json",
  "title": "Read",
  "description": "Reads a file from the local filesystem.\n\n- `file_path` must be an absolute path.\n- Reads up to 2000 lines by default.\n- When you already know which part of the file you need, only read that part. This can be important for larger files.\n- Results are returned using cat -n format, with line numbers starting at 1\n- Reads images (PNG, JPG, …) and presents them visually. Reads PDFs via the `pages` parameter (e.g. \"1-5\", max 20 pages/request; required for PDFs over 10 pages). Reads Jupyter notebooks (.ipynb) as cells with outputs.\n- Reading a directory, a missing file, or an empty file returns an error or system reminder rather than content.\n- Do NOT re-read a file you just edited to verify — Edit/Write would have errored if the change failed, and the harness tracks file state for you.",
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path to the file to read"
    },
    "offset": {
      "type": "integer",
      "description": "The line number to start reading from. Only provide if the file is too large to read at once",
      "minimum": 0,
      "maximum": 9007199254740991
    },
    "limit": {
      "type": "integer",
      "description": "The number of lines to read. Only provide if the file is too large to read at once.",
      "exclusiveMinimum": 0,
      "maximum": 9007199254740991
    },
    "pages": {
      "type": "string",
      "description": "Page range for PDF files (e.g., \"1-5\", \"3\", \"10-20\"). Only applicable to PDF files. Maximum 20 pages per request."
    }
  },
  "required": [
    "file_path"
  ],
  "additionalProperties": false
};

export const EDIT_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/Edit.json",
  "title": "Edit",
  "description": "Performs exact string replacement in a file.\n\n- You must Read the file in this conversation before editing, or the call will fail.\n- `old_string` must match the file exactly, including indentation, and be unique — the edit fails otherwise. Strip the Read line prefix (line number + tab) before matching.\n- `replace_all: true` replaces every occurrence instead.",
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path to the file to modify"
    },
    "old_string": {
      "type": "string",
      "description": "The text to replace"
    },
    "new_string": {
      "type": "string",
      "description": "The text to replace it with (must be different from old_string)"
    },
    "replace_all": {
      "type": "boolean",
      "description": "Replace all occurrences of old_string (default false)",
      "default": false
    }
  },
  "required": [
    "file_path",
    "old_string",
    "new_string"
  ],
  "additionalProperties": false
};

export const MULTIEDIT_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/MultiEdit.json",
  "title": "MultiEdit",
  "description": "LEGACY (present through 1.0.12x, absent from 2.0.x+ tool lists). This is a tool for making multiple edits to a single file in one operation. It is built on top of the Edit tool ... All edits are applied in sequence, in the order they are provided; each edit operates on the result of the previous edit; all edits must be valid for the operation to succeed - if any edit fails, none will be applied.",
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path to the file to modify"
    },
    "edits": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "old_string": {
            "type": "string",
            "description": "The text to replace"
          },
          "new_string": {
            "type": "string",
            "description": "The text to replace it with"
          },
          "replace_all": {
            "type": "boolean",
            "description": "Replace all occurences of old_string (default false).",
            "default": false
          }
        },
        "required": [
          "old_string",
          "new_string"
        ],
        "additionalProperties": false
      },
      "description": "Array of edit operations to perform sequentially on the file",
      "minItems": 1
    }
  },
  "required": [
    "file_path",
    "edits"
  ],
  "additionalProperties": false
};

export const WRITE_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/Write.json",
  "title": "Write",
  "description": "Writes a file to the local filesystem, overwriting if one exists.\n\nWhen to use: creating a new file, or fully replacing one you've already Read. Overwriting an existing file you haven't Read will fail. For partial changes, use Edit instead.",
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "The absolute path to the file to write (must be absolute, not relative)"
    },
    "content": {
      "type": "string",
      "description": "The content to write to the file"
    }
  },
  "required": [
    "file_path",
    "content"
  ],
  "additionalProperties": false
};

export const GREP_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/Grep.json",
  "title": "Grep",
  "description": "Content search built on ripgrep. Prefer this over `grep`/`rg` via Bash — results integrate with the permission UI and file links.\n\n- Full regex syntax (e.g. \"log.*Error\", \"function\\s+\\w+\"). Ripgrep, not grep — escape literal braces (`interface\\{\\}`).\n- Filter with `glob` (e.g. \"**/*.tsx\") or `type` (e.g. \"js\", \"py\", \"rust\").\n- `output_mode`: \"content\" (matching lines), \"files_with_matches\" (paths only, default), or \"count\".\n- `multiline: true` for patterns that span lines.",
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "The regular expression pattern to search for in file contents"
    },
    "path": {
      "type": "string",
      "description": "File or directory to search in (rg PATH). Defaults to current working directory."
    },
    "glob": {
      "type": "string",
      "description": "Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"
    },
    "output_mode": {
      "type": "string",
      "description": "Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\".",
      "enum": [
        "content",
        "files_with_matches",
        "count"
      ],
      "default": "files_with_matches"
    },
    "-B": {
      "type": "number",
      "description": "Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."
    },
    "-A": {
      "type": "number",
      "description": "Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."
    },
    "-C": {
      "type": "number",
      "description": "Alias for context."
    },
    "context": {
      "type": "number",
      "description": "Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."
    },
    "-n": {
      "type": "boolean",
      "description": "Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true.",
      "default": true
    },
    "-i": {
      "type": "boolean",
      "description": "Case insensitive search (rg -i)"
    },
    "-o": {
      "type": "boolean",
      "description": "Print only the matched (non-empty) parts of each matching line, one match per output line (rg -o / --only-matching). Requires output_mode: \"content\", ignored otherwise. Defaults to false.",
      "default": false
    },
    "type": {
      "type": "string",
      "description": "File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types."
    },
    "head_limit": {
      "type": "number",
      "description": "Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250 when unspecified. Pass 0 for unlimited (use sparingly — large result sets waste context).",
      "default": 250
    },
    "offset": {
      "type": "number",
      "description": "Skip first N lines/entries before applying head_limit, equivalent to \"| tail -n +N | head -N\". Works across all output modes. Defaults to 0.",
      "default": 0
    },
    "multiline": {
      "type": "boolean",
      "description": "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
      "default": false
    }
  },
  "required": [
    "pattern"
  ],
  "additionalProperties": false
};

export const GLOB_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/Glob.json",
  "title": "Glob",
  "description": "Fast file pattern matching. Supports glob patterns like \"**/*.js\" or \"src/**/*.ts\". Returns matching file paths sorted by modification time.",
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "The glob pattern to match files against"
    },
    "path": {
      "type": "string",
      "description": "The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."
    }
  },
  "required": [
    "pattern"
  ],
  "additionalProperties": false
};

export const LS_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/LS.json",
  "title": "LS",
  "description": "LEGACY (removed during 1.0.x; absent from 1.0.123 and later captures). Lists files and directories in a given path. The path parameter must be an absolute path, not a relative path. You can optionally provide an array of glob patterns to ignore with the ignore parameter. You should generally prefer the Glob and Grep tools, if you know which directories to search.",
  "type": "object",
  "properties": {
    "path": {
      "type": "string",
      "description": "The absolute path to the directory to list (must be absolute, not relative)"
    },
    "ignore": {
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "List of glob patterns to ignore"
    }
  },
  "required": [
    "path"
  ],
  "additionalProperties": false
};
