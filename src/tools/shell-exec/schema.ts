import { z } from 'zod';
import { artifactRefSchema, isolationReportSchema, MAX_LIMITS, networkReportSchema, streamSummarySchema } from '../../sandbox/index.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').max(128);
const limit = (max: number) => z.number().int().min(1).max(max);
const MAX_TIMEOUT_MS = 3_600_000;

export const shellExecArgs = z
  .strictObject({
    argv: z.array(z.string().max(65536)).min(1).max(4096).optional().describe('Command and arguments, run without a shell (the default form)'),
    shell: z.enum(['bash', 'sh']).optional().describe('Run `script` with this shell instead of argv'),
    script: z.string().max(1024 * 1024).optional(),
    cwd: z.string().min(1).optional().describe('Working directory beneath the workspace root; default the root'),
    env: z
      .strictObject({
        pass: z.array(envName).max(128).optional().describe("Variables copied from the runtime's environment"),
        secret: z.array(envName).max(32).optional().describe("Copied like `pass`; their values are redacted from everything recorded"),
        set: z.record(envName, z.string().max(65536)).optional().describe('Literal values (recorded like any argument)'),
      })
      .optional()
      .describe('Allow-list: only these variables (and PATH, HOME, LANG defaults) reach the command'),
    stdin: z
      .union([z.literal('none'), z.strictObject({ text: z.string().max(16 * 1024 * 1024) }), z.strictObject({ artifact: z.string().regex(/^sha256:[0-9a-f]{64}$/) })])
      .optional(),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Wall clock limit; default 120000'),
    idle_timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('End the command after this long without output'),
    limits: z
      .strictObject({
        cpu_seconds: limit(MAX_LIMITS.cpu_seconds).optional(),
        address_space_bytes: limit(MAX_LIMITS.address_space_bytes).optional(),
        processes: limit(MAX_LIMITS.processes).optional(),
        file_size_bytes: limit(MAX_LIMITS.file_size_bytes).optional(),
        open_files: limit(MAX_LIMITS.open_files).optional(),
        output_bytes: limit(MAX_LIMITS.output_bytes).optional().describe('Per stream; past it the command ends with reason output_limit'),
      })
      .optional(),
    network: z
      .enum(['none', 'host', 'allowlist'])
      .optional()
      .describe(
        "`allowlist`: HTTP(S) through Toolgate's proxy (HTTP_PROXY/HTTPS_PROXY are set) to the grant's hosts only, each connection authorized and recorded; nothing else has a route. `host`: the host's network. Both need the network effect class in the grant",
      ),
    pty: z.boolean().optional().describe('Run under a pseudo-terminal: one terminal stream in stdout (CRLF line ends); `unsupported` where util-linux script is missing'),
    collect: z.array(z.string().min(1)).max(16).optional().describe('Workspace files to return as artifacts after exit'),
  })
  .superRefine((a, ctx) => {
    const viaShell = a.shell !== undefined || a.script !== undefined;
    if (a.argv !== undefined && viaShell) ctx.addIssue({ code: 'custom', path: ['argv'], message: 'give argv, or shell with script, not both' });
    if (a.argv === undefined && !viaShell) ctx.addIssue({ code: 'custom', path: ['argv'], message: 'argv, or shell with script, is required' });
    if (viaShell && a.shell === undefined) ctx.addIssue({ code: 'custom', path: ['shell'], message: 'script needs shell: "bash" or "sh"' });
    if (viaShell && a.script === undefined) ctx.addIssue({ code: 'custom', path: ['script'], message: 'shell needs a script' });
  });
export type ShellExecArgs = z.infer<typeof shellExecArgs>;

const artifactRef = artifactRefSchema;
const stream = streamSummarySchema;
const limitInForce = z.strictObject({ value: z.number(), enforced_by: z.enum(['rlimit', 'cgroup', 'supervisor', 'none']), note: z.string().optional() });

export const shellExecResult = z.strictObject({
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  reason: z.enum(['exited', 'signaled', 'timeout', 'idle_timeout', 'cancelled', 'output_limit', 'spawn_failed']),
  duration_ms: z.number().int(),
  cpu_ms: z.number().int().nullable(),
  peak_rss_bytes: z.number().int().nullable(),
  isolation: isolationReportSchema,
  limits: z.strictObject({
    cpu_seconds: limitInForce,
    address_space_bytes: limitInForce,
    processes: limitInForce,
    file_size_bytes: limitInForce,
    open_files: limitInForce,
    output_bytes: limitInForce,
  }),
  stdout: stream,
  stderr: stream,
  /** Workspace paths whose git status changed; null outside a git work tree or without write. */
  changed_paths: z.array(z.string()).nullable(),
  changed_paths_truncated: z.boolean(),
  /** The workspace revision after the command (advanced when it may have changed the workspace). */
  revision: z.string(),
  /** Background processes still running when the command exited; teardown killed them. */
  killed_after_exit: z.number().int(),
  collected: z.array(z.strictObject({ path: z.string(), artifact: artifactRef.nullable(), error: z.string().nullable() })),
  notes: z.array(z.string()),
  /** `network: allowlist` only: each connection through the proxy (host, port, address, decision, bytes) and totals. */
  network: networkReportSchema.optional(),
  /** The toolchains on the command's PATH: the path shown, the real directory, the version it names, whether argv[0] is in it. */
  toolchains: z.array(z.strictObject({ path: z.string(), source: z.string(), version: z.string().nullable(), used: z.boolean() })).optional(),
});
export type ShellExecResult = z.infer<typeof shellExecResult>;
