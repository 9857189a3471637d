import { z } from 'zod';
import { isolationReportSchema, streamSummarySchema } from '../../sandbox/index.js';

const MAX_TIMEOUT_MS = 3_600_000;
const MAX_YIELD_MS = 600_000;

export const SESSION_ACTIONS = ['run', 'write', 'read', 'restart', 'close'] as const;

export const shellSessionArgs = z
  .strictObject({
    action: z.enum(SESSION_ACTIONS).optional().describe('run (default): a command in the session (opened on first use); write: text or a key to the running command; read: new output and the final status of a running command; restart; close'),
    session: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . -')
      .optional()
      .describe('Which of the task\'s sessions (default "default"; a task holds at most 4)'),
    command: z
      .string()
      .min(1)
      .max(1024 * 1024)
      .regex(/^[^\0]*$/, 'no NUL characters')
      .optional()
      .describe('run: a bash script, run in the session\'s shell (cd, export, functions persist; `cmd &` keeps running)'),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('run: wall-clock limit of the command (default 120000); past it the command and its session end'),
    yield_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_YIELD_MS)
      .optional()
      .describe('run/read/write: return after this long if the command still runs (it keeps running; read or write later). run default: wait for the end; read/write default: 1000'),
    text: z.string().max(1024 * 1024).optional().describe("write: text to the running command's stdin (add \\n to end a line)"),
    key: z.enum(['C-c', 'C-d', 'C-z', 'C-\\']).optional().describe("write: C-c (SIGINT), C-z (SIGTSTP), C-\\ (SIGQUIT) to the command's processes; C-d ends its stdin"),
  })
  .superRefine((a, ctx) => {
    const action = a.action ?? 'run';
    if (action === 'run' && a.command === undefined) ctx.addIssue({ code: 'custom', path: ['command'], message: 'run needs a command' });
    if (action !== 'run' && a.command !== undefined) ctx.addIssue({ code: 'custom', path: ['command'], message: `${action} takes no command` });
    if (action === 'write' && a.text === undefined && a.key === undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'write needs text or a key' });
    if (action !== 'write' && (a.text !== undefined || a.key !== undefined)) ctx.addIssue({ code: 'custom', path: [a.text !== undefined ? 'text' : 'key'], message: 'text and key go with action write' });
    if (action !== 'run' && a.timeout_ms !== undefined) ctx.addIssue({ code: 'custom', path: ['timeout_ms'], message: 'timeout_ms goes with action run' });
  });
export type ShellSessionArgs = z.infer<typeof shellSessionArgs>;

const stream = streamSummarySchema;

export const shellSessionResult = z.strictObject({
  session: z.string(),
  action: z.enum(SESSION_ACTIONS),
  /** Whether the session is still open after this call. */
  session_state: z.enum(['open', 'ended']),
  /** The command still runs: read or write later for the rest and its exit status. */
  running: z.boolean(),
  exit_code: z.number().int().nullable(),
  /** How the command ended; `running` while it runs; `none` when the call concerned no command. */
  reason: z.enum(['exited', 'timeout', 'cancelled', 'output_limit', 'session_ended', 'running', 'none']),
  /** Since the command started. */
  duration_ms: z.number().int(),
  /** Output since the previous call that returned output of this command. */
  stdout: stream,
  stderr: stream,
  /** The shell's cwd, relative to the workspace root ('.'), or absolute when outside it; null when unknown. */
  cwd: z.string().nullable(),
  cwd_outside_workspace: z.boolean(),
  /** Exported variables the command added, changed or removed (values in `env_values`, redacted). */
  env_changes: z.strictObject({ added: z.array(z.string()), changed: z.array(z.string()), removed: z.array(z.string()) }),
  env_values: z.record(z.string(), z.string()),
  /** Processes besides the shell still running in the session (background jobs). */
  background_processes: z.number().int(),
  /** The sandbox was restarted before this command; cwd and exported env were carried over. */
  restarted: z.strictObject({ reason: z.string(), lost_processes: z.number().int() }).nullable(),
  /** The session ended during (or by) this call; the next run opens a new one. */
  session_ended: z.strictObject({ reason: z.string(), killed_processes: z.number().int() }).nullable(),
  control: z.strictObject({ key: z.string(), signalled_processes: z.number().int() }).nullable(),
  /** Workspace paths whose git status changed; null outside a git work tree or without write. */
  changed_paths: z.array(z.string()).nullable(),
  changed_paths_truncated: z.boolean(),
  revision: z.string(),
  isolation: isolationReportSchema,
  notes: z.array(z.string()),
});
export type ShellSessionResult = z.infer<typeof shellSessionResult>;
