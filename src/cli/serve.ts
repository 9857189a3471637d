import { readFileSync } from 'node:fs';
import type { TaskId } from '../protocol/index.js';
import type { Runtime } from '../runtime/index.js';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { resolveHttpLimits, RESULT_FORMS, serveMcpHttp, serveMcpStdio, type HttpLimits, type ResultForm } from '../server/index.js';
import { intOption, parse, RUNTIME_OPTIONS } from './options.js';
import { configPath, loadConfig } from './config.js';
import { openRuntimeWithPolicy, policyHelp, POLICY_OPTIONS, readGrantFile } from './policy-files.js';
import { ignoredGrantWarning } from './grant-notice.js';
import { UsageError, type Command } from './usage.js';
import { portFault, tokenFileFault } from './startup-faults.js';
import { childTaskOf, endWithSubtask } from './task-token.js';
import { otlpTarget, serveMetrics, startTracing, ToolgateMetrics, type MetricsServing, type Tracing } from '../telemetry/index.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

const LIMIT_OPTIONS = {
  'max-connections': { type: 'string' },
  'connection-idle-ms': { type: 'string' },
  'headers-timeout-ms': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'keep-alive-timeout-ms': { type: 'string' },
  'max-sessions': { type: 'string' },
  'session-idle-ms': { type: 'string' },
} as const;

/** `--http` limit flags and the option each sets (docs/mcp.md "HTTP limits"). */
const LIMIT_FLAGS: Readonly<Record<keyof typeof LIMIT_OPTIONS, keyof HttpLimits>> = {
  'max-connections': 'maxConnections',
  'connection-idle-ms': 'connectionIdleMs',
  'headers-timeout-ms': 'headersTimeoutMs',
  'request-timeout-ms': 'requestTimeoutMs',
  'keep-alive-timeout-ms': 'keepAliveTimeoutMs',
  'max-sessions': 'maxSessions',
  'session-idle-ms': 'sessionIdleMs',
};

/** The limits the flags ask for, checked against the defaults and the open-file limit before anything opens. */
function httpLimitsOf(values: Readonly<Partial<Record<keyof typeof LIMIT_OPTIONS, string>>>): HttpLimits {
  const given: Partial<Record<keyof HttpLimits, number>> = {};
  for (const flag of Object.keys(LIMIT_OPTIONS) as (keyof typeof LIMIT_OPTIONS)[]) {
    const name = LIMIT_FLAGS[flag];
    const v = intOption(values[flag], flag);
    if (v !== undefined) given[name] = v;
  }
  try {
    return resolveHttpLimits(given);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
}

/** Resolves on the first SIGINT or SIGTERM; the listeners go away with it. */
function terminated(): { readonly signal: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (s: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** A person who typed `serve --stdio` at a prompt sees a silent process; say what it is for. */
const STDIO_ON_A_TERMINAL =
  'toolgate: serve --stdio speaks MCP on stdin/stdout and is meant to be started by an MCP client ' +
  '(e.g. `claude mcp add toolgate -- toolgate serve --stdio --workspace "$PWD"`); Ctrl-D ends it. ' +
  'To try a tool by hand: toolgate call fs.read --args \'{"path":"README.md"}\'';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the tools over MCP (stdio or Streamable HTTP)',
  help: `toolgate serve --stdio [options]
toolgate serve --http PORT [--host HOST] [--token-file FILE] [options]

Serves every registry tool to MCP clients of the 2025-11-25 and 2026-07-28 revisions
(docs/mcp.md). Every call goes through the runtime and leaves a receipt; its id and status
are in the result's _meta.

  --stdio            speak MCP on stdin/stdout (what Claude Code and Codex start); ends when
                     the client closes stdin. One connection is one task.
  --http PORT        Streamable HTTP on http://HOST:PORT/mcp (PORT 0: any free port; the URL is
                     printed on stderr). Ends on SIGINT or SIGTERM, cancelling running calls.
  --host HOST        address to bind (default 127.0.0.1; anything else is reachable from
                     other machines: use --token-file)
  --token-file FILE  require "Authorization: Bearer <the file's content>" on every request
  --task ID          task of the calls (stdio: this connection; HTTP: 2026-07-28 requests)
  --task-token-file FILE
                     run as the subtask whose token FILE holds (task.spawn's token_file;
                     docs/tasks.md): tools work in its worktree under its grant; with --http
                     the token is also the bearer token. Needs the parent's --state-dir
  --result-form F    which half of a tools/call result carries it (docs/mcp.md "Result form"):
                     auto (default: text for Claude Code, Codex and opencode, which give the
                     model structuredContent when both are sent; both for other clients),
                     both, text (no structuredContent, no outputSchema), structured
  --metrics-port P   Prometheus /metrics on http://127.0.0.1:P/metrics (with --http it is also
                     at /metrics on the HTTP port; docs/operating.md)
  --profile NAME     serve an agent's own tools instead of the native ones (docs/profiles.md):
                     claude-code (Read, Edit, MultiEdit, Write, Grep, Glob, LS); every call
                     still goes through the runtime and leaves a receipt naming the original tool
${policyHelp(21)}
Spans go over OTLP/HTTP when telemetry.otlp.endpoint (toolgate.config.json) or
OTEL_EXPORTER_OTLP_ENDPOINT is set; queued spans are flushed when serve ends.
  --workspace DIR    workspace root (default: current directory)
  --state-dir DIR    state dir (default: $XDG_STATE_HOME/toolgate/<workspace id>)
  --config FILE      configuration (default: toolgate.config.json in the workspace, if any);
                     flags override it
  --store-url URL    keep the state in this PostgreSQL database, shared by several hosts
                     (default: $TOOLGATE_STORE_URL, then store.url, else SQLite in the state dir)

HTTP limits (docs/mcp.md "HTTP limits"; one client cannot block or evict the others):
  --max-connections N        connections held at once; beyond it the oldest idle one is closed
                             (default: half the open-file limit, at most 1024)
  --connection-idle-ms MS    a new connection that sends nothing is closed (default 5000)
  --headers-timeout-ms MS    request headers must arrive within (default 10000)
  --request-timeout-ms MS    the whole request must arrive within (default 30000)
  --keep-alive-timeout-ms MS an idle kept-alive connection is closed (default 5000)
  --max-sessions N           2025-era sessions open at once; more are refused with 503, none is
                             closed to make room (default 64)
  --session-idle-ms MS       a session with nothing in flight this long is closed (default 1800000)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      ...RUNTIME_OPTIONS,
      stdio: { type: 'boolean' },
      http: { type: 'string' },
      host: { type: 'string' },
      'token-file': { type: 'string' },
      task: { type: 'string' },
      'task-token-file': { type: 'string' },
      profile: { type: 'string' },
      'result-form': { type: 'string' },
      'metrics-port': { type: 'string' },
      ...LIMIT_OPTIONS,
      ...POLICY_OPTIONS,
    });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if ((values.stdio ?? false) === (values.http !== undefined)) throw new UsageError('give exactly one of --stdio and --http PORT');
    if (values.stdio && (values.host !== undefined || values['token-file'] !== undefined)) throw new UsageError('--host and --token-file go with --http');
    if (values.stdio && (Object.keys(LIMIT_OPTIONS) as (keyof typeof LIMIT_OPTIONS)[]).some((flag) => values[flag] !== undefined)) throw new UsageError('the HTTP limit flags go with --http');
    const port = intOption(values.http, 'http');
    if (port !== undefined && port > 65535) throw new UsageError('--http takes a port number (0-65535)');
    const limits = port === undefined ? undefined : httpLimitsOf(values);
    const loaded = loadConfig(values.config, values.workspace);
    const resultForm = values['result-form'] ?? loaded.config.serve?.result_form ?? 'auto';
    if (!(RESULT_FORMS as readonly string[]).includes(resultForm)) throw new UsageError(`--result-form takes one of ${RESULT_FORMS.join(', ')}`);
    const form = { resultForm: resultForm as ResultForm };
    const tokenFile = values['token-file'] ?? (port !== undefined ? configPath(loaded, loaded.config.serve?.token_file) : undefined);
    let token: string | undefined;
    if (tokenFile !== undefined) {
      try {
        token = readFileSync(tokenFile, 'utf8').trim();
      } catch (e) {
        throw tokenFileFault(tokenFile, e);
      }
      if (token === '') throw new UsageError('--token-file: the file is empty');
    }
    if (values['task-token-file'] !== undefined && values.task !== undefined) throw new UsageError('--task and --task-token-file exclude each other: the token names the task');
    const child = values['task-token-file'] === undefined ? null : await childTaskOf(values['task-token-file'], values, loaded);
    const metricsPort = intOption(values['metrics-port'], 'metrics-port') ?? loaded.config.telemetry?.metrics?.port;
    if (metricsPort !== undefined && metricsPort > 65535) throw new UsageError('--metrics-port takes a port number (0-65535)');
    const onError = (e: Error): void => io.err(`toolgate serve: ${e.message}`);
    // Telemetry (docs/operating.md): metrics whenever something can scrape them; the OTLP
    // exporter only when an endpoint is configured (otherwise spans go to the no-op tracer).
    const metrics = port !== undefined || metricsPort !== undefined ? new ToolgateMetrics() : null;
    const target = otlpTarget(loaded.config.telemetry, process.env);
    const tracing: Tracing | null = target === null ? null : await startTracing(target);
    let metricsServing: MetricsServing | null = null;
    let rt: Runtime;
    try {
      rt = await openRuntimeWithPolicy(
        child === null ? values : { ...values, workspace: child.worktree },
        // A subtask's host: its grant was issued at spawn; any other task would get nothing.
        { ...(child === null ? {} : { tasks: loaded.config.tasks ?? {}, grant: {} }), ...(values.profile === undefined ? {} : { profile: values.profile }), ...(metrics ? { observers: [metrics] } : {}), ...(tracing ? { tracerProvider: tracing.provider } : {}) },
        loaded,
      );
    } catch (e) {
      await tracing?.shutdown().catch(() => {});
      throw e;
    }
    metrics?.watch(rt);
    if (rt.auditUnavailable !== null) io.err(`toolgate: warning: no audit checkpoints: ${rt.auditUnavailable}`);
    try {
      if (metrics !== null && metricsPort !== undefined) {
        metricsServing = await serveMetrics(metrics, metricsPort).catch((e: unknown) => {
          throw portFault('127.0.0.1', metricsPort, e);
        });
        io.err(`toolgate: metrics on ${metricsServing.url}`);
      }
      if (values.grant !== undefined && values.task !== undefined) {
        const warning = await ignoredGrantWarning(rt, values.task as TaskId, values.grant, readGrantFile(values.grant));
        if (warning !== undefined) io.err(`toolgate serve: ${warning}`);
      }
      if (port === undefined) {
        // stdout carries the protocol: nothing else may be written there.
        if (process.stdin.isTTY) io.err(STDIO_ON_A_TERMINAL);
        const serving = serveMcpStdio(rt, { ...(values.task ? { taskId: values.task } : {}), ...(child ? { taskId: child.task } : {}), ...form, onError });
        const watch = endWithSubtask(rt, child, () => serving.close());
        if (tracing === null && metricsServing === null) {
          await serving.closed;
          watch.stop();
          return 0;
        }
        // With telemetry a signal closes the connection like the end of stdin, so queued spans are flushed.
        const stop = terminated();
        await Promise.race([serving.closed, stop.signal.then(() => serving.close())]);
        stop.dispose();
        watch.stop();
        return 0;
      }
      const host = values.host ?? loaded.config.serve?.host ?? '127.0.0.1';
      const serving = await serveMcpHttp(rt, {
        port,
        host,
        ...(LOOPBACK.has(host) ? {} : { allowedHosts: [...localhostAllowedHostnames(), host] }),
        ...(token === undefined ? {} : { bearerToken: token }),
        ...(values.task ? { taskId: values.task } : {}),
        // A subtask's host over HTTP: its task token is the bearer token.
        ...(child ? { taskId: child.task, sessionTaskId: child.task, ...(token === undefined ? { bearerToken: child.token } : {}) } : {}),
        ...limits,
        ...form,
        onError,
        ...(metrics ? { metrics: () => metrics.scrape() } : {}),
      }).catch((e: unknown) => {
        throw portFault(host, port, e);
      });
      const stop = terminated();
      const watch = endWithSubtask(rt, child, () => Promise.resolve());
      io.err(`toolgate: serving MCP on ${serving.url}${token === undefined && child === null ? '' : ' (bearer token required)'}`);
      if (!LOOPBACK.has(host) && token === undefined && child === null) io.err('toolgate: warning: listening beyond loopback without --token-file');
      const l = serving.limits;
      io.err(
        `toolgate: limits: ${l.maxConnections} connections (idle ${l.connectionIdleMs} ms, headers ${l.headersTimeoutMs} ms, ` +
          `request ${l.requestTimeoutMs} ms, keep-alive ${l.keepAliveTimeoutMs} ms), ${l.maxSessions} sessions (idle ${l.sessionIdleMs} ms)`,
      );
      const signal = await Promise.race([stop.signal, watch.ended.then((s) => `subtask ${s ?? 'ended'}`)]);
      stop.dispose();
      watch.stop();
      io.err(`toolgate: ${signal}: closing`);
      await serving.close();
      return 0;
    } finally {
      try {
        await rt.close();
      } finally {
        // After the runtime: its last calls' spans are queued by then, and go out now.
        await metricsServing?.close();
        await tracing?.shutdown().catch((e: unknown) => onError(e instanceof Error ? e : new Error(String(e))));
      }
    }
  },
};
