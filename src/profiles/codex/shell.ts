// Codex's one-shot shell tools onto shell.exec: `shell` (an argv, execvp-style) and
// `shell_command` (a script in the user's shell, here bash), with `workdir` and `timeout_ms`;
// answered in Codex's freeform exec text. `sandbox_permissions: "require_escalated"` is refused:
// every command runs in Toolgate's sandbox (docs/profiles.md). A patch sent through the shell —
// ["apply_patch", PATCH] or bash -lc "apply_patch <<'EOF' …" — is applied as apply_patch, as Codex
// intercepts it, not run.
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool, ToolCall } from '../profile.js';
import { applyPatchMap, applyPatchPrepare, applyPatchRender } from './apply-patch-tool.js';
import { freeformExec } from './exec-text.js';
import { workspacePath } from '../paths.js';
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

/** The patch of a shell call that is an apply_patch invocation, or null. */
function interceptedPatch(command: readonly string[] | string): string | null {
  const argv = Array.isArray(command) ? command : ['bash', '-lc', command];
  if (argv.length === 2 && argv[0] === 'apply_patch') return argv[1] ?? null;
  const script = argv.length === 3 && ['bash', 'sh'].includes(argv[0] ?? '') && ['-lc', '-c'].includes(argv[1] ?? '') ? (argv[2] ?? '') : null;
  const m = script === null ? null : /^\s*apply_patch\b([\s\S]*)$/.exec(script);
  return m ? (m[1] ?? '').trim() : null;
}

function shellTool(name: 'shell' | 'shell_command'): ProfileTool {
  const schema = name === 'shell' ? SHELL_SCHEMA : SHELL_COMMAND_SCHEMA;
  return {
    name,
    description: schema['description'] as string,
    inputSchema: schema,
    prepare(raw: JsonObject, ctx: ProfileContext): readonly ToolCall[] {
      const patch = interceptedPatch((raw as unknown as ShellArgs).command);
      return patch === null ? [] : applyPatchPrepare(patch, ctx);
    },
    map(raw: JsonObject, ctx: ProfileContext, prepared?: readonly Receipt[]): Mapping {
      const a = raw as unknown as ShellArgs;
      const patch = interceptedPatch(a.command);
      if (patch !== null) return applyPatchMap(patch, ctx, prepared);
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
      const patch = interceptedPatch(a.command);
      if (patch !== null) {
        const shown = applyPatchRender(r, patch);
        return { ...shown, text: freeformExec(shown.isError ? 1 : 0, 0, shown.text) };
      }
      const e = execOutput(r);
      if (e === null) return { text: r.error?.message ?? `${r.tool} ended ${r.status}`, isError: true };
      const output = e.timedOut ? `command timed out after ${a.timeout_ms ?? e.durationMs} milliseconds\n${e.output}` : e.output;
      return { text: freeformExec(e.exit, e.durationMs, output), isError: r.status !== 'succeeded' };
    },
  };
}

export const shellTools: readonly ProfileTool[] = [shellTool('shell'), shellTool('shell_command')];
