// Real parts for the subtask tests: a git repository as the workspace, and MCP client sessions
// over stdio to the built `toolgate serve`, one as the parent task, one per child (with its token).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';

export const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

export interface Tree {
  readonly workspace: string;
  readonly state: string;
  readonly base: string;
  readonly config: string;
  readonly grant: string;
  cleanup(): void;
}

const GRANT = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'], budget: { calls: 60 } };

/** A committed git repository holding `files`, a config with `tasks`, and a grant file (both outside the workspace). */
export function gitTree(prefix: string, files: Readonly<Record<string, string>>, tasks: object = {}, grant: object = GRANT): Tree {
  const d = tempDirs(prefix);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(d.workspace, p)), { recursive: true });
    writeFileSync(join(d.workspace, p), text);
  }
  execFileSync('git', ['init', '-q', d.workspace]);
  execFileSync('git', ['-C', d.workspace, 'add', '-A']);
  execFileSync('git', ['-C', d.workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
  const config = join(d.base, 'toolgate.config.json');
  writeFileSync(config, JSON.stringify({ tasks }));
  const grantFile = join(d.base, 'grant.json');
  writeFileSync(grantFile, JSON.stringify(grant));
  return { ...d, config, grant: grantFile };
}

export interface Answer {
  readonly ok: boolean;
  /** The tool's result (succeeded) or the error body (failed). */
  readonly result: Record<string, unknown>;
  readonly error: { code: string; message: string; data: Record<string, unknown> } | null;
}

export interface Session {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Answer>;
  close(): Promise<void>;
}

async function session(args: readonly string[]): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', ...args], stderr: 'inherit' });
  const client = new Client({ name: 'subtask-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    async call(name, a, signal) {
      const r = await client.callTool({ name: name.replace(/\./g, '_'), arguments: a }, signal ? { signal, timeout: 120_000 } : { timeout: 120_000 });
      const sc = (r.structuredContent ?? {}) as Record<string, unknown>;
      const error = r.isError ? (sc['error'] as Answer['error']) : null;
      return { ok: r.isError !== true, result: sc, error };
    },
    close: () => client.close(),
  };
}

/** The parent: an agent's own session on the workspace, as task `task`. */
export function parentSession(t: Tree, task = 'tsk_root'): Promise<Session> {
  return session(['--workspace', t.workspace, '--state-dir', t.state, '--config', t.config, '--grant', t.grant, '--task', task]);
}

/** A child: an agent connected with the token task.spawn wrote. */
export function childSession(t: Tree, tokenFile: string): Promise<Session> {
  return session(['--task-token-file', tokenFile, '--state-dir', t.state, '--config', t.config]);
}

export const CONCLUSION_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' }, findings: { type: 'array', items: { type: 'string' } } },
  required: ['summary'],
  additionalProperties: false,
};

export function spawnArgs(owned: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { objective: 'fix the greeting', output_schema: CONCLUSION_SCHEMA, owned, budget: { calls: 10 }, deadline_ms: 300_000, ...extra };
}
