// The input schemas and descriptions of Codex's shell tools, as collected in shared/toolsurf/codex/
// (the top level of each file; the `x-toolsurf` facts block left out).
import type { InputSchema } from '../profile.js';

export const SHELL_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/codex/shell.json",
  "title": "shell",
  "description": "Runs a shell command and returns its output.\n- The arguments to `shell` will be passed to execvp(). Most terminal commands should be prefixed with [\"bash\", \"-lc\"].\n- Always set the `workdir` param when using the shell function. Do not use `cd` unless absolutely necessary.",
  "type": "object",
  "properties": {
    "command": {
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "The command to execute"
    },
    "workdir": {
      "type": "string",
      "description": "The working directory to execute the command in"
    },
    "timeout_ms": {
      "type": "number",
      "description": "The timeout for the command in milliseconds"
    },
    "sandbox_permissions": {
      "type": "string",
      "description": "Sandbox permissions for the command. Set to \"require_escalated\" to request running without sandbox restrictions; defaults to \"use_default\". (When exec-permission approvals are enabled: use \"with_additional_permissions\" to request additional sandboxed filesystem or network permissions (preferred), or \"require_escalated\".)",
      "enum": [
        "use_default",
        "require_escalated",
        "with_additional_permissions"
      ],
      "default": "use_default"
    },
    "justification": {
      "type": "string",
      "description": "Only set if sandbox_permissions is \"require_escalated\". Request approval from the user to run this command outside the sandbox. Phrased as a simple question that summarizes the purpose of the command as it relates to the task at hand - e.g. 'Do you want to fetch and pull the latest version of this git branch?'"
    },
    "prefix_rule": {
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "Only specify when sandbox_permissions is `require_escalated`. Suggest a prefix command pattern that will allow you to fulfill similar requests from the user in the future. Should be a short but reasonable prefix, e.g. [\"git\", \"pull\"] or [\"uv\", \"run\"] or [\"pytest\"]."
    },
    "additional_permissions": {
      "type": "object",
      "properties": {
        "network": {
          "type": "object",
          "properties": {
            "enabled": {
              "type": "boolean",
              "description": "Set to true to request network access."
            }
          },
          "additionalProperties": false
        },
        "file_system": {
          "type": "object",
          "description": "requested extra read/write roots (see local_tool.rs file_system_permissions_schema)"
        }
      },
      "additionalProperties": false,
      "description": "Only present when exec-permission approvals are enabled."
    }
  },
  "required": [
    "command"
  ],
  "additionalProperties": false
};

export const SHELL_COMMAND_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/codex/shell_command.json",
  "title": "shell_command",
  "description": "Runs a shell command and returns its output.\n- Always set the `workdir` param when using the shell_command function. Do not use `cd` unless absolutely necessary.",
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "The shell script to execute in the user's default shell"
    },
    "workdir": {
      "type": "string",
      "description": "The working directory to execute the command in"
    },
    "timeout_ms": {
      "type": "number",
      "description": "The timeout for the command in milliseconds"
    },
    "login": {
      "type": "boolean",
      "description": "Whether to run the shell with login shell semantics. Defaults to true.",
      "default": true
    },
    "sandbox_permissions": {
      "type": "string",
      "description": "Sandbox permissions for the command. Set to \"require_escalated\" to request running without sandbox restrictions; defaults to \"use_default\". (When exec-permission approvals are enabled: use \"with_additional_permissions\" to request additional sandboxed filesystem or network permissions (preferred), or \"require_escalated\".)",
      "enum": [
        "use_default",
        "require_escalated",
        "with_additional_permissions"
      ],
      "default": "use_default"
    },
    "justification": {
      "type": "string",
      "description": "Only set if sandbox_permissions is \"require_escalated\". Request approval from the user to run this command outside the sandbox. Phrased as a simple question that summarizes the purpose of the command as it relates to the task at hand - e.g. 'Do you want to fetch and pull the latest version of this git branch?'"
    },
    "prefix_rule": {
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "Only specify when sandbox_permissions is `require_escalated`. Suggest a prefix command pattern that will allow you to fulfill similar requests from the user in the future. Should be a short but reasonable prefix, e.g. [\"git\", \"pull\"] or [\"uv\", \"run\"] or [\"pytest\"]."
    },
    "additional_permissions": {
      "type": "object",
      "properties": {
        "network": {
          "type": "object",
          "properties": {
            "enabled": {
              "type": "boolean",
              "description": "Set to true to request network access."
            }
          },
          "additionalProperties": false
        },
        "file_system": {
          "type": "object",
          "description": "requested extra read/write roots (see local_tool.rs file_system_permissions_schema)"
        }
      },
      "additionalProperties": false,
      "description": "Only present when exec-permission approvals are enabled."
    }
  },
  "required": [
    "command"
  ],
  "additionalProperties": false
};

export const EXEC_COMMAND_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/codex/exec_command.json",
  "title": "exec_command",
  "description": "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
  "type": "object",
  "properties": {
    "cmd": {
      "type": "string",
      "description": "Shell command to execute."
    },
    "workdir": {
      "type": "string",
      "description": "Optional working directory to run the command in; defaults to the turn cwd."
    },
    "shell": {
      "type": "string",
      "description": "Shell binary to launch. Defaults to the user's default shell."
    },
    "tty": {
      "type": "boolean",
      "description": "Whether to allocate a TTY for the command. Defaults to false (plain pipes); set to true to open a PTY and access TTY process.",
      "default": false
    },
    "yield_time_ms": {
      "type": "number",
      "description": "How long to wait (in milliseconds) for output before yielding."
    },
    "max_output_tokens": {
      "type": "number",
      "description": "Maximum number of tokens to return. Excess output will be truncated."
    },
    "login": {
      "type": "boolean",
      "description": "Whether to run the shell with -l/-i semantics. Defaults to true.",
      "default": true
    },
    "sandbox_permissions": {
      "type": "string",
      "description": "Sandbox permissions for the command. Set to \"require_escalated\" to request running without sandbox restrictions; defaults to \"use_default\". (When exec-permission approvals are enabled: use \"with_additional_permissions\" to request additional sandboxed filesystem or network permissions (preferred), or \"require_escalated\".)",
      "enum": [
        "use_default",
        "require_escalated",
        "with_additional_permissions"
      ],
      "default": "use_default"
    },
    "justification": {
      "type": "string",
      "description": "Only set if sandbox_permissions is \"require_escalated\". Request approval from the user to run this command outside the sandbox. Phrased as a simple question that summarizes the purpose of the command as it relates to the task at hand - e.g. 'Do you want to fetch and pull the latest version of this git branch?'"
    },
    "prefix_rule": {
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "Only specify when sandbox_permissions is `require_escalated`. Suggest a prefix command pattern that will allow you to fulfill similar requests from the user in the future. Should be a short but reasonable prefix, e.g. [\"git\", \"pull\"] or [\"uv\", \"run\"] or [\"pytest\"]."
    },
    "additional_permissions": {
      "type": "object",
      "properties": {
        "network": {
          "type": "object",
          "properties": {
            "enabled": {
              "type": "boolean",
              "description": "Set to true to request network access."
            }
          },
          "additionalProperties": false
        },
        "file_system": {
          "type": "object",
          "description": "requested extra read/write roots (see local_tool.rs file_system_permissions_schema)"
        }
      },
      "additionalProperties": false,
      "description": "Only present when exec-permission approvals are enabled."
    }
  },
  "required": [
    "cmd"
  ],
  "additionalProperties": false
};

export const WRITE_STDIN_SCHEMA: InputSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "toolsurf/codex/write_stdin.json",
  "title": "write_stdin",
  "description": "Writes characters to an existing unified exec session and returns recent output.",
  "type": "object",
  "properties": {
    "session_id": {
      "type": "number",
      "description": "Identifier of the running unified exec session."
    },
    "chars": {
      "type": "string",
      "description": "Bytes to write to stdin (may be empty to poll)."
    },
    "yield_time_ms": {
      "type": "number",
      "description": "How long to wait (in milliseconds) for output before yielding."
    },
    "max_output_tokens": {
      "type": "number",
      "description": "Maximum number of tokens to return. Excess output will be truncated."
    }
  },
  "required": [
    "session_id"
  ],
  "additionalProperties": false
};
