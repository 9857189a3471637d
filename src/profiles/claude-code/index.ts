// The `claude-code` profile: Claude Code's file tools (Read, Edit, MultiEdit, Write, Grep, Glob,
// LS) with their own names, schemas and text, mapped onto Toolgate's fs tools (docs/profiles.md).
// Bash maps onto shell.session.
import type { Profile } from '../profile.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { lsTool } from './ls.js';
import { multiEditTool } from './multi-edit.js';
import { readTool } from './read.js';
import { toolUseError } from './text.js';
import { writeTool } from './write.js';

export const claudeCodeProfile: Profile = {
  name: 'claude-code',
  tools: [readTool, editTool, multiEditTool, writeTool, grepTool, globTool, lsTool, bashTool],
  wrapError: toolUseError,
  // Claude Code's wording for a call that does not fit the schema (shared/toolsurf: "InputValidationError: …").
  invalidArguments: (tool, problems) => `InputValidationError: ${tool} failed due to the following issue${problems.length === 1 ? '' : 's'}:\n${problems.join('\n')}`,
  unknownTool: (name) => `No such tool available: ${name}`,
};
