// Claude Code's Bash onto shell.session (session "Bash"): the working directory persists between
// calls; output is stdout then stderr; a non-zero exit reads `Exit code N` and the output, as
// Claude Code shows it (shared/toolsurf/claude-code/Bash.json). run_in_background starts the
// command as a job of the same session, its output in a file of the session's /tmp.
// docs/profiles.md lists where it differs.
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { combined, sessionOutput } from '../session-output.js';
import { BASH_SCHEMA } from './bash-schema.js';
import { failed, ok, toolgateFailure } from './text.js';

const SESSION = 'Bash';
const DEFAULT_TIMEOUT_MS = 120_000;
const BACKGROUND_COUNT = 'claude-code.background';

interface BashArgs {
  readonly command: string;
  readonly timeout?: number;
  readonly description?: string;
  readonly run_in_background?: boolean;
  readonly dangerouslyDisableSandbox?: boolean;
}

/** A new id for a background command, remembered under the command for the text of its answer. */
function backgroundId(ctx: ProfileContext, command: string): string {
  const n = Number(ctx.notes.get(BACKGROUND_COUNT) ?? 0) + 1;
  ctx.notes.set(BACKGROUND_COUNT, n);
  ctx.notes.set(`${BACKGROUND_COUNT}:${command}`, `bash_${n}`);
  return `bash_${n}`;
}

const outputFile = (id: string): string => `/tmp/tasks/${id}.output`;

export const bashTool: ProfileTool = {
  name: 'Bash',
  description: BASH_SCHEMA['description'] as string,
  inputSchema: BASH_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as BashArgs;
    if (a.dangerouslyDisableSandbox === true) {
      return { refuse: { code: 'policy_denied', text: 'Permission for this action was denied: Toolgate runs every command in its sandbox; dangerouslyDisableSandbox is not honoured.' } };
    }
    const timeout_ms = a.timeout ?? DEFAULT_TIMEOUT_MS;
    if (a.run_in_background === true) {
      const id = backgroundId(ctx, a.command);
      // A job of the session's shell: it keeps running between calls and ends with the session.
      const script = `mkdir -p /tmp/tasks && { ${a.command}\n} > ${outputFile(id)} 2>&1 &`;
      return { call: { tool: 'shell.session', arguments: { action: 'run', session: SESSION, command: script, timeout_ms } } };
    }
    return { call: { tool: 'shell.session', arguments: { action: 'run', session: SESSION, command: a.command, timeout_ms } } };
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as BashArgs;
    const o = sessionOutput(r);
    if (o === null) return toolgateFailure(r);
    if (a.run_in_background === true && r.status === 'succeeded') {
      const shown = String(ctx.notes.get(`${BACKGROUND_COUNT}:${a.command}`) ?? 'bash');
      return ok(
        `Command running in background with ID: ${shown}. Output is being written to: ${outputFile(shown)}. It keeps running while this Bash session lives; read the file with Bash (\`cat ${outputFile(shown)}\`): no notification comes when it completes.`,
      );
    }
    const out = combined(o);
    if (o.reason === 'timeout') {
      return failed(`Command timed out after ${Math.round((a.timeout ?? DEFAULT_TIMEOUT_MS) / 1000)}s; it was stopped and its shell ended (the next command starts in the workspace root).${out === '' ? '' : `\n${out}`}`);
    }
    if (r.status === 'succeeded') return ok(out);
    if (o.exitCode !== null && o.exitCode !== 0) return { text: `Exit code ${o.exitCode}\n${out}`, isError: true };
    return toolgateFailure(r);
  },
};
