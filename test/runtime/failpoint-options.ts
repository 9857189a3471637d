// The runtime options of the failpoint matrix, shared by the child that is killed and the
// runtime that recovers: the same grant, policies, connectors and store on both sides of the crash.
import type { RuntimeOptions } from '../../src/runtime/index.js';
import { postgresStore } from '../../src/store/index.js';
import { connectorConfig, grantFor, HOST_POLICY, SECRET, SECRET_ENV } from '../tools/http-request/harness.js';
import { grant as gitGrant, POLICY as GIT_POLICY } from '../tools/git-remote/harness.js';
import { FIXTURE as UPSTREAM_FIXTURE, MANIFEST as UPSTREAM_MANIFEST } from '../upstream/support.js';

/** Which tools' setup: `fs` (workspace tools, shell), `http`, `git`, `upstream`, `tasks` (a parent), `subtask` (a child in its worktree: its grant is the stored one). */
export type RuntimeKind = 'fs' | 'http' | 'git' | 'upstream' | 'tasks' | 'subtask';

export interface RuntimeSpec {
  readonly kind: RuntimeKind;
  /** A PostgreSQL database's URL: the store both runtimes share (default: SQLite in the state dir). */
  readonly pg?: string;
  /** The upstream fixture's data dir (kind `upstream`). */
  readonly upstreamData?: string;
}

const FS_GRANT = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] };
// Every action permitted: the matrix is about crashes, not approvals (an upstream send needs one by default).
const PERMIT_ALL = 'permit (principal, action, resource);';

function optionsOf(kind: RuntimeKind, upstreamData: string | undefined): Partial<RuntimeOptions> {
  switch (kind) {
    case 'fs':
      return { grant: FS_GRANT as never };
    case 'tasks':
      return { grant: FS_GRANT as never, tasks: {} };
    case 'subtask':
      return { tasks: {} };
    case 'http':
      process.env[SECRET_ENV] = SECRET;
      return { grant: grantFor() as never, policies: [{ name: 'http.cedar', text: HOST_POLICY }], connectors: { http: connectorConfig() } };
    case 'git':
      return { grant: gitGrant() as never, policies: [{ name: 'git.cedar', text: GIT_POLICY }] };
    case 'upstream':
      if (upstreamData === undefined) throw new Error('an upstream case needs its data dir');
      return {
        grant: { tools: ['*'], effects: ['read', 'network', 'send'], read: ['**'], write: [] } as never,
        policies: [{ name: 'all.cedar', text: PERMIT_ALL }],
        upstreams: { issues: { command: process.execPath, args: [UPSTREAM_FIXTURE], data_dir: upstreamData, tools: UPSTREAM_MANIFEST as never, unmanifested: 'refuse' } },
      };
  }
}

export function failpointRuntimeOptions(spec: RuntimeKind | RuntimeSpec): Partial<RuntimeOptions> {
  const s: RuntimeSpec = typeof spec === 'string' ? { kind: spec } : spec;
  return { ...optionsOf(s.kind, s.upstreamData), ...(s.pg !== undefined ? { store: postgresStore({ url: s.pg, pool: 2 }) } : {}) };
}
