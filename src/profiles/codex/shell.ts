// Codex's one-shot shell tools onto shell.exec: `shell` (an argv, execvp-style) and
// `shell_command` (a script in the user's shell, here bash), with `workdir` and `timeout_ms`;
// answered in Codex's freeform exec text. `sandbox_permissions: "require_escalated"` is refused:
// every command runs in Toolgate's sandbox (docs/profiles.md).
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { freeformExec } from './exec-text.js';
import { workspacePath } from './paths.js';
import { SHELL_COMMAND_SCHEMA, SHELL_SCHEMA } from './shell-schemas.js';

interface ShellArgs {
  readonly command: readonly string[] | string;
  readonly workdir?: string;
  readonly timeout_ms?: number;
  readonly sandbox_permissions?: string;
}

const ESCALATION_REFUSED = 'Toolgate runs every command in its sandbox: sandbox_permissions "require_escalated" is not granted. Run the command within the sandbox.';

function preview(stream: unknown): string {
  const p = typeof stream === 'object' && stream !== null ? (stream as { preview?: unknown }).preview : undefined;
  return typeof p === 'string' ? p : '';
}

/** Codex aggregates stdout and stderr into one output; here stdout, then stderr. */
export function execOutput(r: Receipt): { exit: number; durationMs: number; output: string; timedOut: boolean } | null {
  const res = r.result;
  if (typeof res !== 'object' || res === null || !('stdout' in res)) return null;
  const o = res as Record<string, unknown>;
  const out = preview(o['stdout']);
  const err = preview(o['stderr']);
  return {
    exit: typeof o['exit_code'] === 'number' ? o['exit_code'] : -1,
    durationMs: Number(o['duration_ms'] ?? 0),
    output: out !== '' && err !== '' && !out.endsWith('\n') ? `${out}\n${err}` : `${out}${err}`,
    timedOut: o['reason'] === 'timeout',
  };
}

function shellTool(name: 'shell' | 'shell_command'): ProfileTool {
  const schema = name === 'shell' ? SHELL_SCHEMA : SHELL_COMMAND_SCHEMA;
  return {
    name,
    description: schema['description'] as string,
    inputSchema: schema,
    map(raw: JsonObject, ctx: ProfileContext): Mapping {
      const a = raw as unknown as ShellArgs;
      if (a.sandbox_permissions === 'require_escalated') return { refuse: { code: 'policy_denied', text: ESCALATION_REFUSED } };
      const how = Array.isArray(a.command) ? { argv: a.command } : { shell: 'bash', script: String(a.command) };
      return {
        call: {
          tool: 'shell.exec',
          arguments: { ...how, ...(a.workdir === undefined ? {} : { cwd: workspacePath(a.workdir, ctx.root) }), ...(a.timeout_ms === undefined ? {} : { timeout_ms: Math.max(1, Math.round(a.timeout_ms)) }) },
        },
      };
    },
    render(r: Receipt, raw: JsonObject): ProfileText {
      const a = raw as unknown as ShellArgs;
      const e = execOutput(r);
      if (e === null) return { text: r.error?.message ?? `${r.tool} ended ${r.status}`, isError: true };
      const output = e.timedOut ? `command timed out after ${a.timeout_ms ?? e.durationMs} milliseconds\n${e.output}` : e.output;
      return { text: freeformExec(e.exit, e.durationMs, output), isError: r.status !== 'succeeded' };
    },
  };
}

export const shellTools: readonly ProfileTool[] = [shellTool('shell'), shellTool('shell_command')];
