// Real parts for the mutation tests: a temporary workspace with a sibling "outside" folder,
// a runtime with its SQLite store and artifact folder, and a call helper.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Receipt } from '../../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';

export interface Harness {
  /** The workspace root. */
  readonly root: string;
  /** A folder beside the root that nothing may write to. */
  readonly outside: string;
  readonly rt: Runtime;
  call(tool: string, args: Record<string, unknown>, extra?: Record<string, unknown>): Promise<Receipt>;
}

export async function withHarness(fn: (h: Harness) => Promise<void>): Promise<void> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-mut-')));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  execFileSync('mkdir', ['-p', root, outside, join(base, 'state')]);
  const rt = await createRuntime({ workspace: root, stateDir: join(base, 'state') });
  let n = 0;
  const h: Harness = {
    root,
    outside,
    rt,
    call: (tool, args, extra = {}) => rt.call({ protocol_version: 'tool-call.v1', task_id: 't1', tool, arguments: args, idempotency_key: `k${++n}`, ...extra }),
  };
  try {
    await fn(h);
  } finally {
    await rt.close();
    try {
      execFileSync('chattr', ['-R', '-i', base], { stdio: 'ignore' });
    } catch {
      // nothing was made immutable
    }
    rmSync(base, { recursive: true, force: true });
  }
}

/** Every entry beneath `dir` with its bytes' sha256 and mode, for before/after comparisons (links not followed). */
export function snapshot(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const st = lstatSync(join(dir, rel));
    if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(join(dir, rel))}`;
    else if (st.isDirectory()) {
      out[rel] = `dir:${(st.mode & 0o7777).toString(8)}`;
      Object.assign(out, snapshot(dir, rel));
    } else out[rel] = `${(st.mode & 0o7777).toString(8)}:${createHash('sha256').update(readFileSync(join(dir, rel))).digest('hex')}`;
  }
  return out;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
