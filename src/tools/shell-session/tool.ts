import { isAbsolute, relative } from 'node:path';
import { abortKindOf, errorBody, ToolgateError, type ArtifactRef, type Resource, type TaskId } from '../../protocol/index.js';
import { defineTool, type ExecuteContext, type ToolDefinition, type ToolOutcome } from '../../registry/index.js';
import { changedPaths, intentResources, SANDBOX_PATH, unresolvedOf } from '../../resources/index.js';
import { checkToolchainConfig, DEFAULT_LIMITS, defaultHomes, sandboxCache, SandboxSession, type Sandbox, type DriverReport, type ToolchainConfig } from '../../sandbox/index.js';
import { shellSessionArgs, shellSessionResult, type ShellSessionArgs, type ShellSessionResult } from './schema.js';
import { sessionResult, statusOf, type ResultParts } from './result.js';
import { DEFAULT_SESSION_IDLE_MS, SessionTable, type SessionEntry } from './sessions.js';
import { gitStatus, heldGitStatus, statusAfter, type HeldStatus } from './git-status.js';
import { waitFor } from './wait.js';

export const SHELL_SESSION_DEFAULT_TIMEOUT_MS = 120_000;
/** How long read and write wait for the command by default before they return what came. */
const FOLLOW_DEFAULT_YIELD_MS = 1_000;

/** What every session starts with; HOME is the sandbox's private /tmp. */
const START_ENV: Readonly<Record<string, string>> = {
  PATH: SANDBOX_PATH,
  HOME: '/tmp',
  LANG: 'C.UTF-8',
};

export interface ShellSessionOptions {
  /** Paths hidden besides home dot-entries (the runtime's state dir is added). */
  readonly hide?: readonly string[];
  /** false: sessions bind the workspace read-only, whatever the grant. */
  readonly workspaceWrite?: boolean;
  readonly bwrapPath?: string | null;
  readonly homes?: readonly string[];
  readonly toolchains?: ToolchainConfig;
  /** A session unused this long ends by itself. Default 30 minutes. */
  readonly idleMs?: number;
}

interface Prepared {
  readonly writable: boolean;
}

type Ctx = ExecuteContext<ShellSessionArgs, Prepared>;
type Outcome = ToolOutcome<ShellSessionResult>;

function isWithin(path: string, root: string): boolean {
  const rel = relative(root, path);
  return !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * shell.session: a persistent bash per task (and name) in one long-lived bubblewrap sandbox;
 * each command its own receipt. docs/shell-session.md.
 */
export function createShellSession(opts: ShellSessionOptions = {}): ToolDefinition<ShellSessionArgs, ShellSessionResult, Prepared> & {
  readonly sessions: SessionTable;
} {
  checkToolchainConfig(opts.toolchains ?? {}, opts.homes ?? defaultHomes());
  const table = new SessionTable(opts.idleMs ?? DEFAULT_SESSION_IDLE_MS);
  const sandboxFor = sandboxCache({
    watchWorkspace: true, // ended by dispose below
    ...(opts.bwrapPath !== undefined ? { bwrapPath: opts.bwrapPath } : {}),
    ...(opts.homes !== undefined ? { homes: opts.homes } : {}),
    ...(opts.toolchains !== undefined ? { toolchains: opts.toolchains } : {}),
  });

  const openSession = (sandbox: Sandbox, ctx: Ctx, name: string, carry: DriverReport | null): Promise<SessionEntry> => {
    const root = ctx.workspace.root;
    const cwd = carry && carry.cwd !== '' && isWithin(carry.cwd, root) ? carry.cwd : root;
    return table.open(ctx.task_id, name, () =>
      SandboxSession.open(sandbox, { cwd, env: carry ? carry.env : START_ENV, workspaceWritable: ctx.prepared.writable, toolchainEnv: carry === null }),
    );
  };

  const base = async (ctx: Ctx, entry: SessionEntry | undefined, sandbox: Sandbox): Promise<Omit<ResultParts, 'action' | 'name'>> => ({
    open: entry !== undefined && !entry.session.ended,
    isolation: entry?.session.isolation ?? { level: sandbox.level(), network: 'none', workspace: ctx.prepared.writable ? 'read-write' : 'read-only', capabilities: 'none', uid: 0 },
    revision: await ctx.revision.current(),
    root: ctx.workspace.root,
  });

  const outcome = (ctx: Ctx, result: ShellSessionResult): Outcome => {
    const { status, error } = statusOf(result, ctx.task_id);
    const artifacts = [result.stdout.artifact, result.stderr.artifact].filter((a): a is ArtifactRef => a !== null);
    return {
      status,
      result,
      ...(error ? { error } : {}),
      truncated: result.stdout.omitted_bytes > 0 || result.stderr.omitted_bytes > 0,
      artifacts,
      evidence: { session: result.session, reason: result.reason, exit_code: result.exit_code, revision: result.revision, changed_paths: result.changed_paths?.length ?? null },
    };
  };

  /** Waits for the pending command (up to `yieldMs`) and returns its output since the last call, or its end. */
  const follow = async (ctx: Ctx, sandbox: Sandbox, entry: SessionEntry, action: 'run' | 'read' | 'write', yieldMs: number | null, extra: Partial<ResultParts>, held: HeldStatus | null = null): Promise<Outcome> => {
    const pending = entry.pending;
    if (!pending) throw new ToolgateError('internal_error', 'no pending command', {});
    const { cmd } = pending;
    const waited = await waitFor(cmd.done, yieldMs, ctx.signal);
    if (waited === 'aborted') {
      const kind = abortKindOf(ctx.signal.reason);
      cmd.stop(kind === 'deadline' || kind === 'timeout' ? 'timeout' : 'cancelled');
      await cmd.done;
    }
    const session = entry.session;
    if (waited === 'yield' && !cmd.settled) {
      await held?.drop(); // the command goes on past this call: its status after is read when it ends
      return outcome(
        ctx,
        sessionResult({
          ...(await base(ctx, entry, sandbox)),
          ...extra,
          name: entry.name,
          action,
          running: true,
          segment: cmd.cut(),
          durationMs: cmd.durationMs,
          before: cmd.before,
          background: session.backgroundCount(),
        }),
      );
    }
    const end = await cmd.done;
    const segment = cmd.cut();
    entry.pending = null;
    let sessionEnded: ShellSessionResult['session_ended'] = null;
    if (end.session_end !== null || session.ended) {
      const ended = await table.end(entry, end.session_end ?? 'shell_exited');
      sessionEnded = { reason: ended.reason, killed_processes: ended.killed };
    }
    let changed: { paths: string[]; truncated: boolean } | null = null;
    if (pending.before) {
      const after = await statusAfter(sandbox, ctx.workspace.root, ctx.signal, held);
      if (after) changed = changedPaths(pending.before, after);
    }
    const writable = session.isolation.workspace === 'read-write';
    const mayHaveChanged = changed ? changed.paths.length > 0 : writable;
    const revision = mayHaveChanged ? await ctx.revision.advance() : await ctx.revision.current();
    const notes: string[] = [];
    if (sessionEnded && end.reason === 'session_ended') notes.push('the shell exited (e.g. `exit`): the session ended; the next run opens a new one');
    return outcome(
      ctx,
      sessionResult({
        ...(await base(ctx, entry, sandbox)),
        ...extra,
        open: !session.ended,
        revision,
        name: entry.name,
        action,
        end,
        segment,
        before: cmd.before,
        after: end.report,
        background: session.ended ? 0 : session.backgroundCount(),
        sessionEnded,
        changed,
        notes: [...(extra.notes ?? []), ...notes],
      }),
    );
  };

  const noCommand = (ctx: Ctx, name: string, action: string): ToolgateError =>
    new ToolgateError('not_found', `no command is running in session "${name}" (action ${action} needs one; start one with action "run")`, { task_id: ctx.task_id, effect_key: `shell.session:${name}` });

  const run = async (ctx: Ctx, sandbox: Sandbox, name: string): Promise<Outcome> => {
    let entry = table.get(ctx.task_id, name);
    // A shell that ended between commands (a background job killed it) is replaced by a new one.
    if (entry && entry.session.ended && !entry.pending) {
      table.forget(entry);
      entry = undefined;
    }
    if (entry?.pending) {
      return {
        status: 'failed',
        result: null,
        error: errorBody('effect_in_progress', `a command is still running in session "${name}"; use action "read" to wait for it, "write" to send input or key "C-c", or "restart"`, {
          task_id: ctx.task_id,
          effect_key: `shell.session:${name}`,
          state: 'running',
          attempt_id: null,
        }),
      };
    }
    if (!entry) table.checkRoom(ctx.task_id);
    await ctx.markSent();
    let restarted: ShellSessionResult['restarted'] = null;
    const release = entry ? table.hold(entry) : null;
    try {
      const wantMode = ctx.prepared.writable ? 'read-write' : 'read-only';
      if (entry && (entry.session.isolation.workspace !== wantMode || (await entry.session.masksChanged()))) {
        const why =
          entry.session.isolation.workspace !== wantMode
            ? `the workspace is now granted ${wantMode}`
            : 'secret or protected entries of the workspace changed since the session started; the sandbox was restarted to mask them';
        const carry = entry.session.state;
        const ended = await table.end(entry, 'masks_changed');
        entry = await openSession(sandbox, ctx, name, carry);
        restarted = { reason: `${why} (cwd and exported variables carried over; shell functions, aliases and background jobs were not)`, lost_processes: ended.killed };
      }
    } finally {
      release?.();
    }
    entry ??= await openSession(sandbox, ctx, name, null);
    const hold = table.hold(entry);
    try {
      const before = ctx.prepared.writable ? await gitStatus(sandbox, ctx.workspace.root, ctx.signal) : null;
      // In a git work tree the status after is set up while the command runs, as shell.exec's is
      // (issue 14): the sandbox waits and git starts when the command ends within this call.
      // Whatever happens it is stopped before this call returns (dropped after a take is a no-op).
      const held = before !== null ? heldGitStatus(sandbox, ctx.workspace.root, new AbortController().signal) : null;
      try {
        const cmd = await entry.session.start({
          script: ctx.args.command ?? '',
          timeoutMs: ctx.args.timeout_ms ?? SHELL_SESSION_DEFAULT_TIMEOUT_MS,
          secrets: [],
          outputCapBytes: DEFAULT_LIMITS.output_bytes,
          openArtifact: (stream) => ctx.artifacts.writer('application/octet-stream', stream),
        });
        entry.pending = { cmd, before };
        return await follow(ctx, sandbox, entry, 'run', ctx.args.yield_ms ?? null, { restarted }, held);
      } finally {
        await held?.drop();
      }
    } finally {
      hold();
    }
  };

  return Object.assign(
    defineTool<ShellSessionArgs, ShellSessionResult, Prepared>({
      name: 'shell.session',
      module: import.meta.url,
      version: '1.1.0',
      description:
        'A persistent bash session per task: cd, export, functions and background jobs (`cmd &`) carry over between runs, in one sandbox like shell.exec (read-only system, workspace read-write, no network, limits). action run (default) runs `command` and returns its exit code, output, cwd and env changes; with yield_ms it returns while the command still runs; then read for more output and the exit status, write to send stdin text or a key (C-c, C-d); restart; close. Several sessions by `session` name (at most 4).',
      owner: 'toolgate',
      effect_class: 'execute',
      reversible: false,
      capabilities: ['process', 'fs.read', 'fs.write'],
      args: shellSessionArgs,
      result: shellSessionResult,
      timeout_ms: 3_600_000 + 60_000,
      max_output_bytes: 256 * 1024,
      cancellation: 'kill',
      idempotency: 'reconcile',
      async normalize(args, ctx) {
        const writable = opts.workspaceWrite !== false && (await ctx.grants({ kind: 'path', path: '.', access: 'write' }));
        const resources: Resource[] = [
          { kind: 'path', path: '.', access: 'execute' },
          { kind: 'path', path: '.', access: writable ? 'write' : 'read' },
        ];
        if ((args.action ?? 'run') === 'run') {
          // The programs the command names, as shell.exec's (docs/shell-intent.md), read from the
          // workspace root with the session's starting PATH. A persistent shell carries cd, PATH,
          // functions and aliases from earlier runs, which the text of this one cannot show: the
          // action also names that as unresolved, so a policy that restricts programs refuses a
          // session command (fail closed) while a grant without program rules runs it.
          const intent = await intentResources({ script: args.command ?? '' }, ctx, '.', SANDBOX_PATH);
          resources.push(...intent.resources, unresolvedOf('session_state'));
          const { command: _command, ...rest } = args;
          return { resources, prepared: { writable }, binding: { command: intent.intent.canonical, rest } };
        }
        return { resources, prepared: { writable } };
      },
      async execute(ctx) {
        const name = ctx.args.session ?? 'default';
        const action = ctx.args.action ?? 'run';
        const sandbox = sandboxFor(ctx.workspace.root, [...(opts.hide ?? []), ...ctx.hidden_paths], ctx.workspace.classifier, ctx.cache_dir);
        sandbox.level(); // isolation_unavailable before anything is sent
        switch (action) {
          case 'run':
            return run(ctx, sandbox, name);
          case 'read':
          case 'write': {
            const entry = table.get(ctx.task_id, name);
            if (!entry?.pending) throw noCommand(ctx, name, action);
            await ctx.markSent();
            const hold = table.hold(entry);
            try {
              let control: ShellSessionResult['control'] = null;
              const notes: string[] = [];
              if (action === 'write') {
                const cmd = entry.pending.cmd;
                if (ctx.args.text !== undefined && !cmd.write(ctx.args.text)) notes.push("the command's stdin is closed already (C-d was sent): the text was not written");
                if (ctx.args.key !== undefined) {
                  const n = cmd.control(ctx.args.key);
                  control = { key: ctx.args.key, signalled_processes: n };
                  if (ctx.args.key !== 'C-d' && n === 0) notes.push(`${ctx.args.key}: the command started no process to signal (the shell itself runs it, e.g. a builtin read); send C-d to end its input, or restart the session`);
                }
              }
              return await follow(ctx, sandbox, entry, action, ctx.args.yield_ms ?? FOLLOW_DEFAULT_YIELD_MS, { control, notes });
            } finally {
              hold();
            }
          }
          case 'restart':
          case 'close': {
            await ctx.markSent();
            const entry = table.get(ctx.task_id, name);
            const ended = entry ? await table.end(entry, action === 'close' ? 'closed' : 'restarted') : null;
            const sessionEnded = ended ? { reason: ended.reason, killed_processes: ended.killed } : null;
            if (action === 'close') {
              return outcome(ctx, sessionResult({ ...(await base(ctx, undefined, sandbox)), name, action, sessionEnded, notes: ended ? [] : [`no session "${name}" was open`] }));
            }
            const fresh = await openSession(sandbox, ctx, name, null);
            return outcome(
              ctx,
              sessionResult({
                ...(await base(ctx, fresh, sandbox)),
                name,
                action,
                before: fresh.session.state,
                restarted: { reason: 'asked: a fresh shell in the workspace root with the starting environment', lost_processes: ended?.killed ?? 0 },
              }),
            );
          }
        }
      },
      async reconcile() {
        return { settled: 'unknown', reason: 'shell.session cannot tell what an interrupted command did; inspect the workspace' };
      },
      async endTask(task: TaskId) {
        await table.endTask(task);
      },
      async dispose() {
        await table.endAll();
        sandboxFor.closeAll();
      },
    }),
    { sessions: table },
  );
}
