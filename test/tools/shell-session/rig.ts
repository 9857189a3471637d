import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import type { TaskGrant } from '../../../src/policy/index.js';
import { createShellSession } from '../../../src/tools/shell-session/tool.js';
import type { ShellSessionResult } from '../../../src/tools/shell-session/schema.js';
import { git } from '../shell-exec/rig.js';

export const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'] };

export interface SessionRig {
  readonly rt: Runtime;
  readonly base: string;
  readonly workspace: string;
  readonly tool: ReturnType<typeof createShellSession>;
  call(args: Record<string, unknown>, task?: string): Promise<Receipt>;
  done(): Promise<void>;
}

/** A runtime with shell.session over a fresh git workspace. */
export async function sessionRig(o: { idleMs?: number; secrets?: string[] } = {}): Promise<SessionRig> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-session-')));
  const workspace = join(base, 'ws');
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  git(workspace, 'init', '-q');
  writeFileSync(join(workspace, 'tracked.txt'), 'one\n');
  git(workspace, 'add', '.');
  git(workspace, 'commit', '-qm', 'init');
  const tool = createShellSession(o.idleMs !== undefined ? { idleMs: o.idleMs } : {});
  const rt = await createRuntime({ workspace, stateDir: join(base, 'state'), tools: [tool as never], grant: GRANT, ...(o.secrets ? { secrets: o.secrets } : {}) });
  let seq = 0;
  return {
    rt,
    base,
    workspace,
    tool,
    call: (args, task = 'task-session') => rt.call({ protocol_version: PROTOCOL_VERSION, task_id: task, tool: 'shell.session', arguments: args, idempotency_key: `k${seq++}` }),
    done: async () => {
      await rt.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export const resultOf = (r: Receipt): ShellSessionResult => r.result as ShellSessionResult;

/** Host pids whose command line is exactly `argv` (e.g. a planted `sleep 1000`). */
export function pidsRunning(...argv: string[]): number[] {
  const want = argv.join('\0') + '\0';
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1') === want) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
