import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/index.js';

/** A fresh workspace and state dir (siblings, so the state dir is outside the workspace). */
export function tempDirs(prefix = 'tg'): { base: string; workspace: string; state: string; cleanup: () => void } {
  const base = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const workspace = join(base, 'ws');
  const state = join(base, 'state');
  mkdirSync(workspace, { recursive: true });
  return { base, workspace, state, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function envelope(tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { protocol_version: PROTOCOL_VERSION, task_id: 'task-1', tool, arguments: args, ...extra };
}

/** A runtime over fresh dirs; `done()` closes it and removes the dirs. */
export async function testRuntime(opts: Partial<RuntimeOptions> = {}): Promise<{ rt: Runtime; workspace: string; state: string; done: () => Promise<void> }> {
  const dirs = tempDirs();
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, ...opts });
  return {
    rt,
    workspace: dirs.workspace,
    state: dirs.state,
    done: async () => {
      await rt.close();
      dirs.cleanup();
    },
  };
}

/** Every file under `dir` (to scan raw bytes of a state dir: the DB, its WAL, every artifact). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}
