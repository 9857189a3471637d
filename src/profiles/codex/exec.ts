// Codex's unified exec onto shell.session: `exec_command` starts a command and returns its output
// when it ends within `yield_time_ms` (default 10 s), or a session ID while it runs;
// `write_stdin` sends characters to it (nothing: poll; Ctrl-C / Ctrl-D as the keys) and returns
// what it printed since. Each running command holds one of the task's shell sessions ("exec-1" …
// "exec-3"; a session's shell is reused once its command ended, starting in the given workdir).
// Texts: Codex's `Chunk ID … Process exited with code N | Process running with session ID ID …`.
import type { Receipt } from '../../protocol/index.js';
import type { JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool } from '../profile.js';
import { sessionOutput, type SessionOutput } from '../session-output.js';
import { unifiedExec } from './exec-text.js';
import { workspacePath } from '../paths.js';
import { EXEC_COMMAND_SCHEMA, WRITE_STDIN_SCHEMA } from './shell-schemas.js';

const SLOTS = ['exec-1', 'exec-2', 'exec-3'] as const;
const EXEC_YIELD_MS = 10_000;
const WRITE_YIELD_MS = 1_000;
/** The command's own limit behind the yields: shell.session's longest. */
const COMMAND_LIMIT_MS = 3_600_000;

interface ExecArgs {
  readonly cmd: string;
  readonly workdir?: string;
  readonly yield_time_ms?: number;
  readonly max_output_tokens?: number;
  readonly sandbox_permissions?: string;
}

interface WriteArgs {
  readonly session_id: number;
  readonly chars?: string;
  readonly yield_time_ms?: number;
  readonly max_output_tokens?: number;
}

// Notes: which session ID a slot's running command has, and which slot an ID is in.
const busyKey = (slot: string): string => `codex.exec.busy:${slot}`;
const slotKey = (id: number): string => `codex.exec.slot:${id}`;
const COUNTER = 'codex.exec.counter';
const pendingKey = (cmd: string): string => `codex.exec.pending:${cmd}`;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function output(o: SessionOutput): string {
  return o.stdout !== '' && o.stderr !== '' && !o.stdout.endsWith('\n') ? `${o.stdout}\n${o.stderr}` : `${o.stdout}${o.stderr}`;
}

// The id's last six hex digits: digest digits in either form of receipt id (its first twelve
// are now the call's start time, the same across hours of calls).
const chunkOf = (r: Receipt): string => r.receipt_id.slice(-6);

/** After a call: a slot whose command ended is free again; one still running keeps its ID. */
function settle(ctx: ProfileContext, slot: string, id: number, o: SessionOutput | null): void {
  if (o !== null && o.running) {
    ctx.notes.set(busyKey(slot), id);
    ctx.notes.set(slotKey(id), slot);
  } else {
    ctx.notes.set(busyKey(slot), undefined);
    ctx.notes.set(slotKey(id), undefined);
  }
}

function answer(r: Receipt, o: SessionOutput | null, id: number, maxTokens: number | undefined): ProfileText {
  if (o === null) return { text: r.error?.message ?? `${r.tool} ended ${r.status}`, isError: true };
  const state = o.running ? { running: id } : { exited: o.exitCode ?? -1 };
  const text = unifiedExec(chunkOf(r), Number((r.result as { duration_ms?: unknown }).duration_ms ?? 0), state, output(o), maxTokens);
  // A finished command's exit code is in the text; Codex reports it as output, not as a failure.
  return { text, isError: false };
}

export const execCommandTool: ProfileTool = {
  name: 'exec_command',
  description: EXEC_COMMAND_SCHEMA['description'] as string,
  inputSchema: EXEC_COMMAND_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as ExecArgs;
    if (a.sandbox_permissions === 'require_escalated') {
      return { refuse: { code: 'policy_denied', text: 'Toolgate runs every command in its sandbox: sandbox_permissions "require_escalated" is not granted. Run the command within the sandbox.' } };
    }
    const slot = SLOTS.find((s) => ctx.notes.get(busyKey(s)) === undefined);
    if (slot === undefined) {
      return { refuse: { code: 'limit_exceeded', text: `${SLOTS.length} processes are running already: wait for one with write_stdin, or stop it (chars "\\u0003").` } };
    }
    const id = Number(ctx.notes.get(COUNTER) ?? 999) + 1;
    ctx.notes.set(COUNTER, id);
    // Reserved until its answer is read (render), so a concurrent exec_command takes another slot.
    ctx.notes.set(busyKey(slot), id);
    ctx.notes.set(pendingKey(a.cmd), { slot, id });
    const dir = workspacePath(a.workdir ?? '.', ctx.root);
    const where = dir.startsWith('/') ? dir : dir === '.' ? ctx.root : `${ctx.root}/${dir}`;
    return {
      call: {
        tool: 'shell.session',
        arguments: { action: 'run', session: slot, command: `cd -- ${quote(where)} && {\n${a.cmd}\n}`, yield_ms: Math.max(0, Math.round(a.yield_time_ms ?? EXEC_YIELD_MS)), timeout_ms: COMMAND_LIMIT_MS },
      },
    };
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as ExecArgs;
    const pending = ctx.notes.get(pendingKey(a.cmd)) as { slot: string; id: number } | undefined;
    const o = sessionOutput(r);
    if (pending !== undefined) settle(ctx, pending.slot, pending.id, o);
    return answer(r, o, pending?.id ?? 0, a.max_output_tokens);
  },
};

const KEYS: Readonly<Record<string, string>> = { '\u0003': 'C-c', '\u0004': 'C-d', '\u001a': 'C-z' };

export const writeStdinTool: ProfileTool = {
  name: 'write_stdin',
  description: WRITE_STDIN_SCHEMA['description'] as string,
  inputSchema: WRITE_STDIN_SCHEMA,
  map(raw: JsonObject, ctx: ProfileContext): Mapping {
    const a = raw as unknown as WriteArgs;
    const slot = ctx.notes.get(slotKey(a.session_id));
    if (typeof slot !== 'string') return { refuse: { code: 'not_found', text: `Unknown session id ${a.session_id}: no process of this task runs under it (it may have exited).` } };
    const chars = a.chars ?? '';
    const yield_ms = Math.max(0, Math.round(a.yield_time_ms ?? WRITE_YIELD_MS));
    const key = KEYS[chars];
    if (chars === '') return { call: { tool: 'shell.session', arguments: { action: 'read', session: slot, yield_ms } } };
    return { call: { tool: 'shell.session', arguments: { action: 'write', session: slot, ...(key === undefined ? { text: chars } : { key }), yield_ms } } };
  },
  render(r: Receipt, raw: JsonObject, ctx: ProfileContext): ProfileText {
    const a = raw as unknown as WriteArgs;
    const slot = ctx.notes.get(slotKey(a.session_id));
    const o = sessionOutput(r);
    if (typeof slot === 'string') settle(ctx, slot, a.session_id, o);
    return answer(r, o, a.session_id, a.max_output_tokens);
  },
};
