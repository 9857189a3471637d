// Shared parts for policy tests: a registry with one tool per resource kind, a real SQLite
// state file with the policy tables, and normalized actions built the way tools build them.
import Database from 'better-sqlite3';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { digestOf, type AttemptId, type EffectClass, type NormalizedAction, type Resource, type TaskId } from '../../src/protocol/index.js';
import { defineTool, Registry, type AnyTool, type CapabilityDimension } from '../../src/registry/index.js';
import type { CedarRequest, PolicyStores } from '../../src/policy/index.js';
import { migratePolicyTables, sqlitePolicyStores } from '../../src/store/sqlite/policy-tables.js';
import { builtinTools } from '../../src/tools/index.js';

function fakeTool(name: string, effect: EffectClass, capabilities: CapabilityDimension[]): AnyTool {
  return defineTool({
    name,
    version: '1.0.0',
    description: `test tool ${name}`,
    owner: 'test',
    effect_class: effect,
    reversible: effect === 'read',
    capabilities,
    args: z.strictObject({ target: z.string() }),
    result: z.strictObject({}),
    timeout_ms: 1000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: () => Promise.resolve({ status: 'succeeded', result: {} }),
  }) as unknown as AnyTool;
}

/** The built-in tools (fs.read, fs.write, …) plus net.fetch, git.push and task.note (no resources). */
export function testRegistry(): Registry {
  return new Registry([
    // The real git.push (Host and Ref resources) gives way to this fixture's Ref-only stand-in.
    ...builtinTools().filter((t) => t.name !== 'git.push'),
    fakeTool('net.fetch', 'network', ['network']),
    fakeTool('git.push', 'publish', ['git']),
    fakeTool('task.note', 'read', []),
  ]);
}

export const T1 = 'task_one' as TaskId;
export const T2 = 'task_two' as TaskId;
export const A1 = 'att_one' as AttemptId;
export const A2 = 'att_two' as AttemptId;
export const NOW = Date.parse('2026-12-02T10:00:00Z');

export function act(tool: string, effect: EffectClass, resources: Resource[], args: unknown = { resources }): NormalizedAction {
  return { tool, tool_version: '1.0.0', effect_class: effect, resources, args_digest: digestOf(args) };
}

export const readOf = (path: string): NormalizedAction => act('fs.read', 'read', [{ kind: 'path', path, access: 'read' }], { path });
export const writeOf = (path: string, content = 'x'): NormalizedAction =>
  act('fs.write', 'write', [{ kind: 'path', path, access: 'write' }], { path, content });
export const fetchOf = (host: string, port: number | null = 443): NormalizedAction =>
  act('net.fetch', 'network', [{ kind: 'host', host, port }], { host, port });
export const pushOf = (ref: string): NormalizedAction => act('git.push', 'publish', [{ kind: 'ref', ref, access: 'write' }], { ref });

export interface StateFile {
  readonly dir: string;
  readonly path: string;
  readonly db: Database.Database;
  readonly stores: PolicyStores;
  reopen(): StateFile;
  close(): void;
}

function openAt(dir: string): StateFile {
  const path = join(dir, 'toolgate.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  migratePolicyTables(db);
  return {
    dir,
    path,
    db,
    stores: sqlitePolicyStores(db),
    reopen: () => {
      db.close();
      return openAt(dir);
    },
    close: () => {
      if (db.open) db.close();
    },
  };
}

/** A fresh SQLite state file with the policy tables, removed by `dispose`. */
export function stateFile(): StateFile & { dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-'));
  const s = openAt(dir);
  return {
    ...s,
    dispose: () => {
      s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Cedar's own request and entity validation of a request Toolgate built, against a schema. */
export function validatedAgainst(schema: cedar.SchemaJson<string>, r: CedarRequest): cedar.AuthorizationAnswer {
  return cedar.isAuthorized({
    principal: { type: 'Toolgate::Task', id: r.principal.id },
    action: { type: 'Toolgate::Action', id: r.action },
    resource: { type: `Toolgate::${r.resource.type}`, id: r.resource.id },
    context: r.context,
    schema,
    validateRequest: true,
    policies: { staticPolicies: 'permit (principal, action, resource);' },
    entities: [
      { uid: { type: 'Toolgate::Task', id: r.principal.id }, attrs: r.principal.attrs, parents: [] },
      { uid: { type: `Toolgate::${r.resource.type}`, id: r.resource.id }, attrs: r.resource.attrs, parents: [] },
    ],
  });
}
