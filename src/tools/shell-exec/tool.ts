import { join } from 'node:path';
import { errorBody, ToolgateError, type ArtifactRef, type CallStatus, type Digest, type ErrorBody, type Resource } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import { changedPaths, intentResources, systemResolver, type DestinationGrant, type HostResolver } from '../../resources/index.js';
import { checkToolchainConfig, defaultHomes, gitStatus, heldGitStatus, HOST_CODE_ENTRIES, sandboxCache, type RunResult, type ToolchainConfig } from '../../sandbox/index.js';
import { collectFiles } from './collect.js';
import { buildEnv, DEFAULT_ENV } from './environment.js';
import { shellExecArgs, shellExecResult, type ShellExecArgs, type ShellExecResult } from './schema.js';

export const SHELL_EXEC_DEFAULT_TIMEOUT_MS = 120_000;
/** Status after a cancelled or timed-out command: short, so the receipt is not abandoned. */
const GIT_STATUS_AFTER_ABORT_MS = 2_000;
const PROGRESS_EVERY_MS = 250;

export interface ShellExecOptions {
  /** Paths hidden from every command besides home dot-entries (the runtime's state dir is added). */
  readonly hide?: readonly string[];
  /** Where `env.pass` and `env.secret` read from. Default: process.env at call time. */
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Run without bubblewrap when it is missing (weaker `process` isolation). Default false. */
  readonly allowProcessIsolation?: boolean;
  /** false: every run binds the workspace read-only, whatever the grant. Default: as the grant allows. */
  readonly workspaceWrite?: boolean;
  readonly graceMs?: number;
  readonly bwrapPath?: string | null;
  /** Homes whose dot-entries are hidden (and whose toolchains are shown). Default: /root, the user's home, /home/*. */
  readonly homes?: readonly string[];
  /**
   * Toolchains shown read-only and put on PATH (config `sandbox.toolchains`,
   * `sandbox.default_toolchains`). Checked here, at start: an entry that would expose a
   * credential store throws `invalid_resource` (`reason: exposes_credentials`).
   */
  readonly toolchains?: ToolchainConfig;
  /** How the `allowlist` proxy resolves host names (the runtime's resolver). Default getaddrinfo. */
  readonly resolver?: HostResolver;
  /**
   * How long one `git status` for `changed_paths` may run (a very large work tree may need more),
   * and how long the status after's sandbox is held for the command: a command that runs longer
   * gets a fresh one when it ends. Default 15 s.
   */
  readonly statusTimeoutMs?: number;
}

interface Prepared {
  /** Absolute working directory. */
  readonly cwd: string;
  /** The workspace is bound read-write (the grant covers writing all of it). */
  readonly writable: boolean;
  readonly collect: readonly string[];
  /** `network: allowlist`: the task's grant, which the proxy asks about each connection. */
  readonly destinationGrant: DestinationGrant | null;
}

function outcomeOf(r: RunResult): { status: CallStatus; error?: ErrorBody } {
  switch (r.reason) {
    case 'exited':
      return r.exit_code === 0 ? { status: 'succeeded' } : { status: 'failed', error: errorBody('execution_failed', `the command exited with ${r.exit_code}`, { reason: r.reason, exit_code: r.exit_code }) };
    case 'signaled':
      return { status: 'failed', error: errorBody('execution_failed', `the command was killed by ${r.signal}`, { reason: r.reason, signal: r.signal }) };
    case 'timeout':
    case 'idle_timeout':
      return { status: 'timed_out', error: errorBody('timed_out', r.reason === 'timeout' ? 'the command ran past its wall-clock limit' : 'the command wrote no output for idle_timeout_ms', { reason: r.reason, phase: 'after_send', process_left: false }) };
    case 'cancelled':
      return { status: 'cancelled', error: errorBody('cancelled', 'the command was cancelled; no process of it is left', { reason: r.reason, process_left: false }) };
    case 'output_limit':
      return { status: 'failed', error: errorBody('limit_exceeded', 'the command wrote more than its output limit', { reason: r.reason, limit: 'output_bytes', value: r.limits.output_bytes.value }) };
    case 'spawn_failed':
      return { status: 'failed', error: errorBody('execution_failed', 'the command could not be started', { reason: r.reason, notes: r.notes }) };
  }
}

/**
 * The host-code entries (`.git`, `toolgate.config.json`) are read-only or masked in the sandbox:
 * the command cannot have changed them. What changes there during a run is another run's
 * placeholder (an absent entry held by an empty file for a writable run's length), which the
 * status before this command may have seen and the status after it not.
 */
function withoutHostCode(c: { paths: string[]; truncated: boolean }): { paths: string[]; truncated: boolean } {
  return { ...c, paths: c.paths.filter((p) => !HOST_CODE_ENTRIES.includes(p)) };
}

/** shell.exec: one command in a bubblewrap sandbox, with limits, timeouts and a bounded, redacted record of its output. */
export function createShellExec(opts: ShellExecOptions = {}): ToolDefinition<ShellExecArgs, ShellExecResult, Prepared> {
  checkToolchainConfig(opts.toolchains ?? {}, opts.homes ?? defaultHomes());
  const sandboxFor = sandboxCache({
    spare: true, // ended by dispose below
    watchWorkspace: true, // likewise
    ...(opts.allowProcessIsolation !== undefined ? { allowProcessIsolation: opts.allowProcessIsolation } : {}),
    ...(opts.graceMs !== undefined ? { graceMs: opts.graceMs } : {}),
    ...(opts.bwrapPath !== undefined ? { bwrapPath: opts.bwrapPath } : {}),
    ...(opts.homes !== undefined ? { homes: opts.homes } : {}),
    ...(opts.toolchains !== undefined ? { toolchains: opts.toolchains } : {}),
  });

  const resolver = opts.resolver ?? systemResolver();

  return defineTool<ShellExecArgs, ShellExecResult, Prepared>({
    name: 'shell.exec',
    module: import.meta.url,
    version: '1.3.0',
    description:
      'Run a command (argv, or a bash/sh script) in a sandbox: read-only system, the workspace mounted read-write, no network unless asked, limits on CPU, memory, processes and output. Returns the exit code, why it ended, head and tail of stdout and stderr (full streams as artifacts), and the workspace paths it changed.',
    owner: 'toolgate',
    effect_class: 'execute',
    reversible: false,
    capabilities: ['process', 'fs.read', 'fs.write', 'network'],
    args: shellExecArgs,
    result: shellExecResult,
    timeout_ms: 3_600_000 + 60_000,
    max_output_bytes: 256 * 1024,
    cancellation: 'kill',
    idempotency: 'reconcile',
    async normalize(args, ctx) {
      const cwd = ctx.workspace.resolve(args.cwd ?? '.');
      if (!cwd.exists) throw new ToolgateError('not_found', `no such directory: ${cwd.path}`, { path: cwd.path });
      if (cwd.kind !== 'directory') throw new ToolgateError('invalid_resource', `${cwd.path} is not a directory`, { path: cwd.path, kind: cwd.kind });
      const collect: string[] = [];
      for (const p of args.collect ?? []) {
        // The file may not exist until the command makes it; an escape is refused now.
        try {
          collect.push(ctx.workspace.resolve(p).path);
        } catch (e) {
          if (!(ToolgateError.isInstance(e) && e.code === 'not_found')) throw e;
          collect.push(p);
        }
      }
      // Read-write only when the grant lets the command write anywhere; else read-only.
      const writable = opts.workspaceWrite !== false && (await ctx.grants({ kind: 'path', path: '.', access: 'write' }));
      const resources: Resource[] = [
        { kind: 'path', path: cwd.path, access: 'execute' },
        { kind: 'path', path: '.', access: writable ? 'write' : 'read' },
        ...collect.map((path): Resource => ({ kind: 'path', path, access: 'read' })),
      ];
      // Every program the line runs, and the files its redirections name (docs/shell-intent.md).
      const path = args.env?.set?.['PATH'] ?? (args.env?.pass?.includes('PATH') ? (opts.hostEnv ?? process.env)['PATH'] : undefined) ?? DEFAULT_ENV['PATH'] ?? '';
      const intent = await intentResources(args, ctx, cwd.path, path);
      resources.push(...intent.resources);
      // An approval binds the line as parsed, spelling removed, with every other argument: the
      // same commands written differently reuse it; other commands, operators or arguments do not.
      const { script: _script, argv: _argv, ...rest } = args;
      const binding = { mode: args.argv ? 'argv' : 'script', command: intent.intent.canonical, rest };
      if (args.network === 'host') resources.push({ kind: 'host', host: '*', port: null });
      let destinationGrant: DestinationGrant | null = null;
      if (args.network === 'allowlist') {
        if (!ctx.destinationGrant) throw new ToolgateError('internal_error', 'shell.exec with network allowlist needs the grant of the task to authorize its connections');
        destinationGrant = await ctx.destinationGrant();
        // The destinations are known only at connect time: the action names the grant's host
        // entries (what the command may reach at most), and the proxy authorizes each connection
        // against the grant then. No entry: `*`, which the grant refuses by name.
        const entries = destinationGrant.hostEntries?.() ?? [];
        resources.push(...(entries.length > 0 ? entries.map((e): Resource => ({ kind: 'host', host: e.host, port: e.port })) : [{ kind: 'host' as const, host: '*', port: null }]));
      }
      const networked = args.network === 'host' || args.network === 'allowlist';
      return {
        resources,
        binding,
        ...(networked ? { effect_class: 'network' as const } : {}),
        prepared: { cwd: cwd.path === '.' ? ctx.workspace.root : join(ctx.workspace.root, cwd.path), writable, collect, destinationGrant },
      };
    },
    async execute(ctx) {
      const { args, prepared } = ctx;
      const { writable } = prepared;
      const sandbox = sandboxFor(ctx.workspace.root, [...(opts.hide ?? []), ...ctx.hidden_paths], ctx.workspace.classifier, ctx.cache_dir);
      sandbox.level(); // isolation_unavailable before anything is sent
      const built = buildEnv(args.env, opts.hostEnv ?? process.env);
      for (const s of built.secrets) ctx.addSecret(s);
      const stdin =
        args.stdin === undefined || args.stdin === 'none' ? null : 'text' in args.stdin ? Buffer.from(args.stdin.text) : ctx.artifacts.get(args.stdin.artifact as Digest);
      const argv = args.argv ?? [args.shell === 'bash' ? 'bash' : 'sh', '-c', args.script ?? ''];

      // The status before the command is read while bubblewrap sets the command's sandbox up: the
      // command is held on its block fd until the status is read and the intent is durable.
      const beforeRead = writable ? gitStatus(sandbox, ctx.workspace.root, ctx.signal, opts.statusTimeoutMs) : Promise.resolve(null);
      beforeRead.catch(() => {}); // awaited below; a rejection before onSpawn ran must not go unhandled
      // In a work tree, the status after's sandbox is set up while the command runs, held until
      // it has ended. Its own signal: a cancel of the call still lets it read, briefly (below).
      const quick = new AbortController();
      const afterHeld = beforeRead.then((b) => (b === null ? null : heldGitStatus(sandbox, ctx.workspace.root, quick.signal, opts.statusTimeoutMs)), () => null);
      const dropAfter = async (): Promise<void> => {
        await (await afterHeld)?.drop();
      };
      let lastProgress = -PROGRESS_EVERY_MS;
      let run: RunResult;
      try {
        run = await sandbox.run({
          argv,
          cwd: prepared.cwd,
          env: built.env,
          stdin,
          timeoutMs: args.timeout_ms ?? SHELL_EXEC_DEFAULT_TIMEOUT_MS,
          idleTimeoutMs: args.idle_timeout_ms ?? null,
          ...(args.limits ? { limits: args.limits } : {}),
          network: args.network ?? 'none',
          ...(prepared.destinationGrant ? { proxy: { grant: prepared.destinationGrant, resolver } } : {}),
          pty: args.pty ?? false,
          workspaceWritable: writable,
          // The toolchains go ahead of the default PATH; a PATH the call gives is taken as given.
          toolchainEnv: !args.env?.pass?.includes('PATH') && !args.env?.secret?.includes('PATH') && args.env?.set?.['PATH'] === undefined,
          secrets: built.secrets,
          signal: ctx.signal,
          openArtifact: (stream) => ctx.artifacts.writer('application/octet-stream', stream),
          onChunk: (c) => {
            if (c.at_ms - lastProgress < PROGRESS_EVERY_MS) return;
            lastProgress = c.at_ms;
            ctx.progress({ progress: c.seq + 1, message: `${c.stream}: chunk ${c.seq} (${c.bytes} bytes) at ${c.at_ms} ms` });
          },
          onSpawn: async () => {
            await beforeRead;
            await ctx.markSent();
          },
        });
      } catch (e) {
        await dropAfter();
        throw e;
      }
      const before = await beforeRead;

      const spawned = run.reason !== 'spawn_failed' || run.duration_ms > 0;
      let changed: { paths: string[]; truncated: boolean } | null = null;
      if (before && spawned) {
        // After a cancel the call's signal is aborted already; the evidence still matters, briefly.
        const onAbort = (): void => quick.abort();
        let timer: NodeJS.Timeout | undefined;
        if (ctx.signal.aborted) timer = setTimeout(onAbort, GIT_STATUS_AFTER_ABORT_MS);
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
        try {
          const held = await afterHeld;
          // A command that ran past the status timeout outlasted the held sandbox: a fresh one reads.
          const taken = held?.take() ?? null;
          const after = taken ? await taken : (await Promise.all([gitStatus(sandbox, ctx.workspace.root, quick.signal, opts.statusTimeoutMs), held?.drop()]))[0];
          if (after) changed = withoutHostCode(changedPaths(before, after));
        } finally {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
        }
      } else await dropAfter();
      const mayHaveChanged = changed ? changed.paths.length > 0 : writable && spawned;
      const revision = mayHaveChanged ? await ctx.revision.advance() : await ctx.revision.current();
      const collected = prepared.collect.length ? collectFiles(prepared.collect, ctx.workspace, ctx.artifacts, built.secrets) : [];

      const result: ShellExecResult = {
        exit_code: run.exit_code,
        signal: run.signal,
        reason: run.reason,
        duration_ms: run.duration_ms,
        cpu_ms: run.cpu_ms,
        peak_rss_bytes: run.peak_rss_bytes,
        isolation: run.isolation,
        limits: run.limits,
        stdout: run.stdout,
        stderr: run.stderr,
        changed_paths: changed?.paths ?? null,
        changed_paths_truncated: changed?.truncated ?? false,
        revision,
        killed_after_exit: run.killed_after_exit,
        collected,
        notes: [...built.notes, ...run.notes, ...(before === null && writable ? ['changed_paths: the workspace is not a git work tree'] : [])],
        ...(run.network ? { network: run.network } : {}),
        ...(run.toolchains && run.toolchains.length > 0 ? { toolchains: [...run.toolchains] } : {}),
      };
      const artifacts = [run.stdout.artifact, run.stderr.artifact, ...collected.map((c) => c.artifact)].filter((a): a is ArtifactRef => a !== null);
      const { status, error } = outcomeOf(run);
      return {
        status,
        result,
        ...(error ? { error } : {}),
        truncated: run.stdout.omitted_bytes > 0 || run.stderr.omitted_bytes > 0,
        artifacts,
        evidence: {
          revision,
          isolation: run.isolation.level,
          changed_paths: changed?.paths.length ?? null,
          exit_code: run.exit_code,
          reason: run.reason,
          ...(run.network ? { connections: { allowed: run.network.allowed, refused: run.network.refused, failed: run.network.failed, bytes_up: run.network.bytes_up, bytes_down: run.network.bytes_down } } : {}),
        },
      };
    },
    async dispose() {
      // Each workspace's sandbox keeps a spare wrapper waiting for the next command.
      sandboxFor.closeAll();
    },
    async reconcile() {
      // A command's effects have no authoritative record to inspect afterwards.
      return { settled: 'unknown', reason: 'shell.exec cannot tell what an interrupted command did; inspect the workspace' };
    },
  });
}
