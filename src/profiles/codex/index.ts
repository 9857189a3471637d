// The `codex` profile: OpenAI Codex CLI's tools on Toolgate's — apply_patch on one fs.patch, shell
// and shell_command on shell.exec, exec_command + write_stdin on shell.session (docs/profiles.md).
import type { Profile } from '../profile.js';
import { applyPatchTool } from './apply-patch-tool.js';
import { execCommandTool, writeStdinTool } from './exec.js';
import { shellTools } from './shell.js';

export const codexProfile: Profile = {
  name: 'codex',
  tools: [applyPatchTool, ...shellTools, execCommandTool, writeStdinTool],
  // Codex returns a failed call's message as the function output itself.
  wrapError: (message) => message,
  invalidArguments: (_tool, problems) => `failed to parse function arguments: ${problems.join('; ')}`,
  unknownTool: (name) => `unsupported call: ${name}`,
};
