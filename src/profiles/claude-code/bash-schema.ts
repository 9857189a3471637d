// Claude Code's Bash input schema and description, as collected in shared/toolsurf/claude-code/Bash.json
// (the top level; the `x-toolsurf` facts block left out), like schemas.ts for the file tools.
import type { InputSchema } from '../profile.js';

export const BASH_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/claude-code/Bash.json",
  "title": "Bash",
  "description": "Executes a bash command and returns its output.\n\n- Working directory persists between calls, but prefer absolute paths \u2014 `cd` in a compound command can trigger a permission prompt. Shell state (env vars, functions) does not persist; the shell is initialized from the user's profile.\n- IMPORTANT: Avoid using this tool to run `find`, `grep`, `cat`, `head`, `tail`, `sed`, `awk`, or `echo` commands, unless explicitly instructed or after you have verified that a dedicated tool cannot accomplish your task. ...\n- Command output is displayed to you, not reliably to the user.\n- `timeout` is in milliseconds: default 120000, max 600000 for a foreground command.\n- `run_in_background` runs the command detached: it keeps running across turns and re-invokes you when it exits. With it, `timeout` is how long the command may run in the background (default 1800000, max 7200000); at that limit it is stopped and you are re-invoked. No `&` needed.\n\n# Git\n... (abridged)",
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "The command to execute"
    },
    "timeout": {
      "type": "number",
      "description": "Optional timeout in milliseconds (max 600000 for a foreground command)",
      "maximum": 600000
    },
    "description": {
      "type": "string",
      "description": "Clear, concise description of what this command does in active voice. Never use words like \"complex\" or \"risk\" in the description - just describe what it does. ... For simple commands (git, npm, standard CLI tools), keep it brief (5-10 words) ... (abridged)"
    },
    "run_in_background": {
      "type": "boolean",
      "description": "Set to true to run this command in the background. With it, `timeout` limits how long the command may run in the background before it is stopped (default 1800000 ms, max 7200000 ms)."
    },
    "dangerouslyDisableSandbox": {
      "type": "boolean",
      "description": "Set this to true to dangerously override sandbox mode and run commands without sandboxing."
    }
  },
  "required": [
    "command"
  ],
  "additionalProperties": false
};
