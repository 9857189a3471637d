// A runtime in front of the test upstream (fixtures/issues-server.mjs, a real McpServer child
// process under bubblewrap), with the manifest docs/gateway.md shows, and readers of what the
// upstream recorded in its data dir.
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { UpstreamsConfig } from '../../src/upstream/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';

export const FIXTURE = join(import.meta.dirname, 'fixtures/issues-server.mjs');

const repo = { arg: 'repo', type: 'repository', normalize: ['trim', 'lowercase'] } as const;

/** The connector manifest of the fixture's tools (echo has none). */
export const MANIFEST = {
  list_issues: { effect: 'read', resources: [repo] },
  create_issue: {
    effect: 'send',
    resources: [repo],
    idempotency_arg: 'key',
    reconcile: { tool: 'find_issue', arguments: { key: '{idempotency_key}' }, found: { pointer: '/found', equals: true } },
  },
  find_issue: { effect: 'read' },
  hang: { effect: 'read' },
  probe: { effect: 'read' },
} as const;

export interface Harness {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly data: string;
  readonly state: string;
  call(task: string, tool: string, args: Record<string, unknown>, extra?: Record<string, unknown>, signal?: AbortSignal): Promise<Receipt>;
  /** Calls, approves the request it raised, and calls again. */
  approved(task: string, tool: string, args: Record<string, unknown>, extra?: Record<string, unknown>): Promise<Receipt>;
  effects(): Record<string, unknown>[];
  cancellations(): Record<string, unknown>[];
  /** Calls of `hang` the upstream started working on. */
  hangs(): number;
  starts(): number;
  /** Host processes whose working directory is the upstream's data dir (the server and its children). */
  processes(): number[];
  /** Rewrites control.json: the fixture changes create_issue and announces it. */
  control(value: Record<string, unknown>): void;
  done(): Promise<void>;
}

export async function openHarness(
  o: { unmanifested?: 'refuse' | 'approve'; manifest?: Record<string, unknown>; callTimeoutMs?: number; workspace?: 'none' | 'read-only'; files?: Record<string, string> } = {},
): Promise<Harness> {
  const dirs = tempDirs('tg-upstream');
  for (const [name, text] of Object.entries(o.files ?? {})) writeFileSync(join(dirs.workspace, name), text);
  const data = join(dirs.base, 'data');
  mkdirSync(data);
  const upstreams: UpstreamsConfig = {
    issues: {
      command: process.execPath,
      args: [FIXTURE],
      data_dir: data,
      tools: (o.manifest ?? MANIFEST) as never,
      unmanifested: o.unmanifested ?? 'refuse',
      ...(o.callTimeoutMs !== undefined ? { call_timeout_ms: o.callTimeoutMs } : {}),
      ...(o.workspace ? { workspace: o.workspace } : {}),
    },
  };
  const rt = await createRuntime({
    workspace: dirs.workspace,
    stateDir: dirs.state,
    grant: { tools: ['*'], effects: ['read', 'network', 'send'], read: ['**'], write: [] },
    upstreams,
  });
  const lines = (f: string): Record<string, unknown>[] =>
    existsSync(join(data, f)) ? readFileSync(join(data, f), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  const call = (task: string, tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Receipt> =>
    rt.call(envelope(tool, args, { task_id: task, ...extra }), signal ? { signal } : {});
  return {
    rt,
    workspace: dirs.workspace,
    data,
    state: dirs.state,
    call,
    async approved(task, tool, args, extra = {}) {
      const first = await call(task, tool, args, extra);
      if (first.error?.code !== 'approval_required') return first;
      await rt.approvals.approve(first.error?.data['approval_id'] as string, 'test-operator', Date.now());
      return call(task, tool, args, extra);
    },
    effects: () => lines('effects.jsonl'),
    cancellations: () => lines('cancelled.jsonl'),
    hangs: () => lines('started.jsonl').length,
    starts: () => lines('starts.log').length,
    processes: () => {
      const out: number[] = [];
      for (const p of readdirSync('/proc')) {
        if (!/^\d+$/.test(p)) continue;
        try {
          if (readlinkSync(`/proc/${p}/cwd`) === data) out.push(Number(p));
        } catch {
          // gone, or not ours to read
        }
      }
      return out;
    },
    control: (value) => writeFileSync(join(data, 'control.json'), JSON.stringify(value)),
    done: async () => {
      await rt.close();
      dirs.cleanup();
    },
  };
}
