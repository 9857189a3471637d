// OpenHands' execute_bash (V0) onto shell.session (session "execute_bash"): a command runs until
// it ends or 10 s pass (the soft timeout: it keeps running, exit code -1), `timeout` (seconds)
// waits that long instead; `is_input: "true"` sends its text (or C-c / C-d / C-z) to the running
// command, an empty command reads on. The observation is OpenHands' own
// (shared/toolsurf/openhands/execute_bash.json): output, suffix, working directory, exit code.
import { join } from 'node:path';
import type { Receipt } from '../../protocol/index.js';
import type { InputSchema, JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { combined, sessionOutput } from '../session-output.js';
import { SECURITY_RISK } from './security-risk.js';

const SESSION = 'execute_bash';
/** OpenHands V0's NO_CHANGE_TIMEOUT_SECONDS. */
const SOFT_TIMEOUT_S = 10;
/** The command's own limit behind the soft timeout: an hour, shell.session's longest. */
const COMMAND_LIMIT_MS = 3_600_000;
const KEYS = ['C-c', 'C-d', 'C-z'] as const;

const TMPL =
  'You may wait longer to see additional output by sending empty command \'\', send other commands to interact with the current process, send keys ("C-c", "C-z", "C-d") to interrupt/kill the previous command before sending your new command, or use the timeout parameter in execute_bash for future commands.';

export const EXECUTE_BASH_SCHEMA: InputSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'toolsurf/openhands/execute_bash.json',
  title: 'execute_bash',
  description:
    "Execute a bash command in the terminal within a persistent shell session.\n\n### Command Execution\n* One command at a time: ... use `&&` or `;` to chain them together.\n* Persistent session: ... environment variables, virtual environments, and working directory persist between commands.\n* Soft timeout: Commands have a soft timeout of 10 seconds, once that's reached, you have the option to continue or interrupt the command ...\n* Shell options: Do NOT use `set -e`, `set -eu`, or `set -euo pipefail` ...\n\n### Long-running Commands\n* ... run them in the background and redirect output to a file, e.g. `python3 app.py > server.log 2>&1 &`.\n* ... set the \"timeout\" parameter ...\n* If a bash command returns exit code `-1`, this means the process hit the soft timeout and is not yet finished. By setting `is_input` to `true`, you can: Send empty `command` to retrieve additional logs; Send text ... to STDIN; Send control commands like `C-c`, `C-d`, or `C-z` ...\n\n### Output Handling\n* Output truncation: If the output exceeds a maximum length, it will be truncated before being returned. (abridged)",
  type: 'object',
  properties: {
    command: {
      type: 'string',
      description:
        'The bash command to execute. Can be empty string to view additional logs when previous exit code is `-1`. Can be `C-c` (Ctrl+C) to interrupt the currently running process. Note: You can only execute one bash command at a time. If you need to run multiple commands sequentially, you can use `&&` or `;` to chain them together.',
    },
    is_input: {
      type: 'string',
      description: 'If True, the command is an input to the running process. If False, the command is a bash command to be executed in the terminal. Default is False.',
      enum: ['true', 'false'],
      default: 'false',
    },
    timeout: {
      type: 'number',
      description: 'Optional. Sets a hard timeout in seconds for the command execution. If not provided, the command will use the default soft timeout behavior.',
    },
    security_risk: SECURITY_RISK,
  },
  required: ['command', 'security_risk'],
  additionalProperties: false,
};

interface ExecArgs {
  readonly command: string;
  readonly is_input?: 'true' | 'false';
  readonly timeout?: number;
}

const isKey = (c: string): c is (typeof KEYS)[number] => (KEYS as readonly string[]).includes(c);

function waitMs(a: ExecArgs): number {
  return Math.round((a.timeout ?? SOFT_TIMEOUT_S) * 1000);
}

export const executeBashTool: ProfileTool = {
  name: 'execute_bash',
  description: EXECUTE_BASH_SCHEMA['description'] as string,
  inputSchema: EXECUTE_BASH_SCHEMA,
  map(raw: JsonObject): Mapping {
    const a = raw as unknown as ExecArgs;
    const yield_ms = waitMs(a);
    if (a.command === '') return { call: { tool: 'shell.session', arguments: { action: 'read', session: SESSION, yield_ms } } };
    if (a.is_input === 'true') {
      const input = isKey(a.command) ? { key: a.command } : { text: `${a.command}\n` };
      return { call: { tool: 'shell.session', arguments: { action: 'write', session: SESSION, ...input, yield_ms } } };
    }
    // A bare key without is_input is still meant for the running command (the schema says so for C-c).
    if (isKey(a.command)) return { call: { tool: 'shell.session', arguments: { action: 'write', session: SESSION, key: a.command, yield_ms } } };
    return { call: { tool: 'shell.session', arguments: { action: 'run', session: SESSION, command: a.command, yield_ms, timeout_ms: COMMAND_LIMIT_MS } } };
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as ExecArgs;
    const o = sessionOutput(r);
    if (o === null) {
      if (r.error?.code === 'not_found') {
        return { text: a.command === '' ? 'ERROR: No previous running command to retrieve logs from.' : 'ERROR: No previous running command to interact with.', isError: true };
      }
      if (r.error?.code === 'effect_in_progress') {
        return { text: `[Your command "${a.command}" is NOT executed. The previous command is still running - You CANNOT send new commands until the previous command is completed. By setting \`is_input\` to \`true\`, you can interact with the current process: ${TMPL}]`, isError: true };
      }
      return { text: `ERROR:\n${r.error?.message ?? `${r.tool} ended ${r.status}`}`, isError: true };
    }
    const continued = a.command === '' || a.is_input === 'true' || isKey(a.command);
    const prefix = continued ? '[Below is the output of the previous command.]\n' : '';
    let suffix: string;
    let exit: number;
    if (o.running) {
      exit = -1;
      suffix = a.timeout === undefined ? `\n[The command has no new output after ${SOFT_TIMEOUT_S} seconds. ${TMPL}]` : `\n[The command timed out after ${a.timeout} seconds. ${TMPL}]`;
    } else {
      exit = o.exitCode ?? -1;
      const sent = isKey(a.command) ? ` CTRL+${a.command.slice(2).toUpperCase()} was sent.` : '';
      suffix = `\n[The command completed with exit code ${exit}.${sent}]`;
    }
    const cwd = o.cwd === null ? null : o.cwdOutside ? o.cwd : join(ctx.root, o.cwd);
    const lines = [`${prefix}${combined(o)}${suffix}`];
    if (cwd !== null) lines.push(`[Current working directory: ${cwd}]`);
    if (exit !== -1) lines.push(`[Command finished with exit code ${exit}]`);
    // OpenHands reports a finished command as an observation, not an error, whatever its exit code.
    return { text: lines.join('\n'), isError: false };
  },
};
