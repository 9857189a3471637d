// Compatibility profiles (docs/profiles.md): the tool shapes agents are trained on, mapped onto
// Toolgate's tools; every call still one envelope through the whole pipeline.
import { anthropicProfile } from './anthropic/index.js';
import { claudeCodeProfile } from './claude-code/index.js';
import { codexProfile } from './codex/index.js';
import { openhandsProfile } from './openhands/index.js';
import type { Profile } from './profile.js';

export type { Profile, ProfileTool, ProfileText, ProfileContext, ToolCall, Mapping, Refusal, InputSchema, FileMemory, TaskNotes } from './profile.js';
export { ProfileRunner, typedCodeLine, type CallRuntime, type ProfileAnswer, type ProfileCallOptions, type ProfileToolListing } from './runner.js';
export { claudeCodeProfile } from './claude-code/index.js';
export { anthropicProfile } from './anthropic/index.js';
export { openhandsProfile } from './openhands/index.js';
export { codexProfile } from './codex/index.js';

const PROFILES: readonly Profile[] = [claudeCodeProfile, anthropicProfile, openhandsProfile, codexProfile];

export const PROFILE_NAMES: readonly string[] = PROFILES.map((p) => p.name);

export function profileNamed(name: string): Profile | undefined {
  return PROFILES.find((p) => p.name === name);
}
