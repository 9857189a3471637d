// Published MCP servers behind Toolgate, unchanged: @modelcontextprotocol/server-memory (a
// knowledge graph in a file of its data dir) and @modelcontextprotocol/server-filesystem (its
// data dir as the one allowed directory), each under bubblewrap, each with a manifest for some
// of its tools: the rest are refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { UpstreamsConfig } from '../../src/upstream/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';

const require = createRequire(import.meta.url);
const binOf = (pkg: string): string => join(dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');

async function open(upstreams: UpstreamsConfig): Promise<{ rt: Runtime; base: string; done: () => Promise<void> }> {
  const dirs = tempDirs('tg-npm-upstream');
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, grant: { tools: ['*'], effects: ['read', 'network', 'delete'], read: ['**'], write: [] }, upstreams });
  return { rt, base: dirs.base, done: async () => (await rt.close(), dirs.cleanup()) };
}

async function approvedCall(rt: Runtime, task: string, tool: string, args: Record<string, unknown>) {
  const first = await rt.call(envelope(tool, args, { task_id: task }));
  if (first.error?.code !== 'approval_required') return first;
  await rt.approvals.approve(first.error.data['approval_id'] as string, 'test-operator', Date.now());
  return rt.call(envelope(tool, args, { task_id: task }));
}

describe('@modelcontextprotocol/server-memory behind Toolgate', () => {
  it('a draft write behind approval, reads without, unmanifested tools refused', async () => {
    const base = tempDirs('tg-memory-data');
    const data = join(base.base, 'data');
    mkdirSync(data);
    const memory = join(data, 'memory.jsonl');
    const g = await open({
      memory: {
        command: process.execPath,
        args: [binOf('@modelcontextprotocol/server-memory')],
        env: { MEMORY_FILE_PATH: memory },
        data_dir: data,
        tools: {
          create_entities: { effect: 'draft' },
          read_graph: { effect: 'read' },
          search_nodes: { effect: 'read' },
          delete_entities: { effect: 'delete', approval: true },
        },
      },
    });
    try {
      const status = g.rt.gateway?.status()[0];
      assert.deepEqual(status?.tools, ['memory.create_entities', 'memory.delete_entities', 'memory.read_graph', 'memory.search_nodes']);
      assert.deepEqual(status?.refused, ['add_observations', 'create_relations', 'delete_observations', 'delete_relations', 'open_nodes']);

      const entities = [{ name: 'toolgate', entityType: 'project', observations: ['governs tool calls'] }];
      const asked = await g.rt.call(envelope('memory.create_entities', { entities }, { task_id: 'm1' }));
      assert.equal(asked.error?.code, 'approval_required');
      assert.equal(existsSync(memory), false, 'nothing written before the approval');
      const created = await approvedCall(g.rt, 'm1', 'memory.create_entities', { entities });
      assert.equal(created.status, 'succeeded', JSON.stringify(created.error));
      assert.match(readFileSync(memory, 'utf8'), /"name":"toolgate"/);

      const found = await g.rt.call(envelope('memory.search_nodes', { query: 'toolgate' }, { task_id: 'm1' }));
      assert.equal(found.status, 'succeeded', JSON.stringify(found.error));
      assert.match(JSON.stringify(found.result), /governs tool calls/);

      const refused = await g.rt.call(envelope('memory.add_observations', { observations: [] }, { task_id: 'm1' }));
      assert.equal(refused.error?.code, 'unknown_tool');
    } finally {
      await g.done();
      base.cleanup();
    }
  });
});

describe('@modelcontextprotocol/server-filesystem behind Toolgate', () => {
  it('reads in its one allowed directory (its data dir), each path a Toolgate::Resource; its write tools refused', async () => {
    const base = tempDirs('tg-fs-data');
    const data = join(base.base, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'notes.txt'), 'upstream notes\n');
    const file = { arg: 'path', type: 'file' } as const;
    const g = await open({
      files: {
        command: process.execPath,
        args: [binOf('@modelcontextprotocol/server-filesystem'), data],
        data_dir: data,
        tools: { read_text_file: { effect: 'read', resources: [file] }, list_directory: { effect: 'read', resources: [file] } },
      },
    });
    try {
      const listed = await g.rt.call(envelope('files.list_directory', { path: data }, { task_id: 'f1' }));
      assert.equal(listed.status, 'succeeded', JSON.stringify(listed.error));
      assert.match(JSON.stringify(listed.result), /notes\.txt/);
      const read = await g.rt.call(envelope('files.read_text_file', { path: join(data, 'notes.txt') }, { task_id: 'f1' }));
      assert.equal(read.status, 'succeeded', JSON.stringify(read.error));
      assert.deepEqual(read.normalized_action?.resources, [{ kind: 'resource', system: 'files', type: 'file', id: join(data, 'notes.txt'), access: 'read' }]);
      assert.match(JSON.stringify(read.result), /upstream notes/);
      assert.ok(g.rt.gateway?.status()[0]?.refused.includes('write_file'));
    } finally {
      await g.done();
      base.cleanup();
    }
  });
});
