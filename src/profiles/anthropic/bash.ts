// The Anthropic API's bash tool (bash_20250124): {command} runs in a persistent shell, {restart}
// starts a new one; onto shell.session (session "bash") with the reference implementation's 120 s
// timeout and texts (anthropic-quickstarts computer_use_demo/tools/bash.py, facts in
// shared/toolsurf/anthropic-api/bash.json). docs/profiles.md says where it differs.
import type { Receipt } from '../../protocol/index.js';
import type { InputSchema, JsonObject, Mapping, ProfileText, ProfileTool } from '../profile.js';
import { combined, sessionOutput } from '../session-output.js';

const SESSION = 'bash';
/** The reference's timeout (seconds): past it the shell is ended and must be restarted. */
const TIMEOUT_S = 120;

export const BASH_SCHEMA: InputSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'toolsurf/anthropic-api/bash.json',
  title: 'bash',
  description:
    'Run commands in a bash shell.\n* When invoking this tool, the contents of the "command" parameter does NOT need to be XML-escaped.\n* State is persistent across command calls: environment variables and the working directory carry over.\n* To restart the shell, call it with restart: true.',
  type: 'object',
  properties: {
    command: { type: 'string', description: 'The bash command to run. Required unless using `restart`.' },
    restart: { type: 'boolean', description: 'Set to true to restart the bash session.' },
  },
  additionalProperties: false,
};

interface BashArgs {
  readonly command?: string;
  readonly restart?: boolean;
}

export const bashTool: ProfileTool = {
  name: 'bash',
  description: BASH_SCHEMA['description'] as string,
  inputSchema: BASH_SCHEMA,
  map(raw: JsonObject): Mapping {
    const a = raw as BashArgs;
    if (a.restart === true) return { call: { tool: 'shell.session', arguments: { action: 'restart', session: SESSION } } };
    if (a.command === undefined || a.command === '') return { refuse: { code: 'invalid_arguments', text: 'no command provided.' } };
    return { call: { tool: 'shell.session', arguments: { action: 'run', session: SESSION, command: a.command, timeout_ms: TIMEOUT_S * 1000 } } };
  },
  render(r: Receipt, raw: JsonObject): ProfileText {
    const a = raw as BashArgs;
    const o = sessionOutput(r);
    if (a.restart === true) return r.status === 'succeeded' ? { text: 'tool has been restarted.', isError: false } : { text: r.error?.message ?? 'restart failed', isError: true };
    if (o === null) return { text: r.error?.message ?? `${r.tool} ended ${r.status}`, isError: true };
    if (o.reason === 'timeout') return { text: `timed out: bash has not returned in ${TIMEOUT_S.toFixed(1)} seconds and must be restarted`, isError: true };
    if (o.reason === 'session_ended') return { text: `<system>tool must be restarted</system>\nbash has exited with returncode ${o.exitCode ?? -1}`, isError: true };
    const out = combined(o);
    if (r.status === 'succeeded') return { text: out, isError: false };
    // The reference reports no exit code at all; the model is told it.
    const exit = o.exitCode === null ? '' : `${out === '' ? '' : '\n'}exit code ${o.exitCode}`;
    return { text: `${out}${exit}`, isError: true };
  },
};
