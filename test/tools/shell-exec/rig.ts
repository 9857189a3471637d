import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import type { TaskGrant } from '../../../src/policy/index.js';
import { createShellExec } from '../../../src/tools/shell-exec/tool.js';
import type { ShellExecResult } from '../../../src/tools/shell-exec/schema.js';

export const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'] };

/** Host git, without the user's global config, as the operator would run it. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' } });
}

export interface ShellRig {
  readonly rt: Runtime;
  readonly base: string;
  readonly workspace: string;
  exec(script: string, extra?: Record<string, unknown>): Promise<Receipt>;
  done(): Promise<void>;
}

/**
 * Every line through: the rig's tests attack the sandbox, so policy must not stop an attack first
 * (with the default policy a redirection into .git or from a secret path is refused before it
 * runs: test/tools/shell-exec/intent.test.ts).
 */
export const PERMIT_ALL = [{ name: 'sandbox-under-test.cedar', text: 'permit (principal, action, resource);' }];

/** A runtime with shell.exec over a fresh workspace (a git repo with one commit when `git`). */
export async function shellRig(o: { git?: boolean; workspace?: (base: string) => string; secretPatterns?: string[] } = {}): Promise<ShellRig> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-shell-')));
  const workspace = o.workspace ? o.workspace(base) : join(base, 'ws');
  mkdirSync(workspace, { recursive: true });
  if (o.git) {
    git(workspace, 'init', '-q');
    writeFileSync(join(workspace, 'tracked.txt'), 'one\n');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'init');
  }
  const rt = await createRuntime({
    workspace,
    stateDir: join(base, 'state'),
    tools: [createShellExec({ graceMs: 300 }) as never],
    grant: GRANT,
    policies: PERMIT_ALL,
    ...(o.secretPatterns ? { secretPatterns: o.secretPatterns } : {}),
  });
  let seq = 0;
  return {
    rt,
    base,
    workspace,
    exec: (script, extra = {}) =>
      rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'task-shell', tool: 'shell.exec', arguments: { shell: 'bash', script, ...extra }, idempotency_key: `k${seq++}` }),
    done: async () => {
      await rt.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export const resultOf = (r: Receipt): ShellExecResult => r.result as ShellExecResult;
