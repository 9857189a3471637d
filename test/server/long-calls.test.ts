// Long shell_exec calls through a real MCP client over Streamable HTTP, each command in the real
// bwrap sandbox (docs/mcp.md#long-calls): a call re-issued with the same idempotency key after
// its client gave up attaches to the running effect (one execution, one receipt); a caller that
// never comes back stops the effect after the grace; a call run as an MCP task (2025-11-25,
// SDK 1.32 client) is created, polled, listed, answered with its receipt, and cancelled with no
// process left.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import type { TaskGrant } from '../../src/policy/index.js';
import { tempDirs } from '../support/fixtures.js';
import { newMarker, processesWithMarker, sleepersWithMarker } from '../sandbox/fixtures.js';
import { waitFor } from '../support/processes.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'] };

interface Served {
  readonly rt: Runtime;
  readonly serving: HttpServing;
  readonly workspace: string;
  close(): Promise<void>;
}

async function serve(prefix: string, detachGraceMs?: number): Promise<Served> {
  const dirs = tempDirs(prefix);
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, grant: GRANT, ...(detachGraceMs !== undefined ? { detachGraceMs } : {}) });
  const serving = await serveMcpHttp(rt, { port: 0 });
  return {
    rt,
    serving,
    workspace: dirs.workspace,
    close: async () => {
      await serving.close();
      await rt.close();
      dirs.cleanup();
    },
  };
}

const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);
const textOf = (r: { content?: unknown }): string => ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('a re-issued call with the same idempotency key attaches to the running shell_exec', () => {
  let s: Served;
  before(async () => (s = await serve('tg-attach')));
  after(async () => s.close());

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`${era}: the second call gets the progress and then the first call's receipt; the command ran once`, async () => {
      const client = new Client({ name: 'attach-test', version: '1.0.0' }, { versionNegotiation: { mode: era === '2026-07-28' ? { pin: era } : 'legacy' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(s.serving.url)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), era);
        const key = `k-${newMarker()}`;
        const count = join(s.workspace, `count-${era}.txt`);
        const gate = join(s.workspace, `gate-${era}`);
        // Appends once per execution, then runs until the test opens the gate, printing as it goes.
        const params = {
          name: 'shell_exec',
          arguments: { shell: 'bash', script: `echo run >> count-${era}.txt; until [ -e gate-${era} ]; do sleep 0.1; done; for i in 1 2 3; do echo tick $i; sleep 0.1; done; echo done` },
          _meta: { 'toolgate/idempotency_key': key },
        };
        // The first request is given up by its client, as a client that timed out does.
        const gaveUp = new AbortController();
        const first = client.callTool(params, { signal: gaveUp.signal });
        const firstSettled = first.then(
          () => 'answered',
          () => 'rejected',
        );
        assert.ok(await waitFor(() => lines(count).length === 1, 20_000), 'the command started');
        gaveUp.abort();
        assert.equal(await firstSettled, 'rejected');
        // Re-issued with the same key (and a progress token): it waits for the running effect.
        const progress: string[] = [];
        const second = client.callTool(params, { onprogress: (p) => void progress.push(p.message ?? ''), resetTimeoutOnProgress: true });
        // The effect still runs after its first client went away; let it finish.
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(lines(count), ['run'], 'still one execution while the second call waits');
        writeFileSync(gate, '');
        const result = await second;
        assert.equal(result.isError ?? false, false, textOf(result));
        assert.match(textOf(result), /tick 3\s+done/);
        assert.equal(result._meta?.['toolgate/attached'], true);
        assert.equal(result._meta?.['toolgate/replay'], true);
        assert.ok(progress.some((m) => m.startsWith('stdout')), `progress reached the attached caller: ${JSON.stringify(progress)}`);
        // Exactly one execution and one receipt for the key, the one the second call got.
        assert.deepEqual(lines(count), ['run']);
        const receipts = (await s.rt.store.listReceipts({})).filter((r) => r.idempotency_key === key);
        assert.equal(receipts.length, 1);
        assert.equal(receipts[0]?.status, 'succeeded');
        assert.equal(result._meta?.['toolgate/receipt_id'], receipts[0]?.receipt_id);
        // Later, the same key is a plain replay of that receipt.
        const third = await client.callTool(params);
        assert.equal(third._meta?.['toolgate/receipt_id'], receipts[0]?.receipt_id);
        assert.equal(third._meta?.['toolgate/replay'], true);
        assert.equal(third._meta?.['toolgate/attached'], undefined);
        assert.deepEqual(lines(count), ['run']);
      } finally {
        await client.close();
      }
    });
  }
});

describe('over stdio through the built CLI', () => {
  it('a call given up by its client and re-issued with the key attaches: one execution, the same receipt', async () => {
    const d = tempDirs('tg-attach-stdio');
    const client = new Client({ name: 'attach-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state], stderr: 'inherit' }));
    try {
      const params = {
        name: 'shell_exec',
        arguments: { shell: 'bash', script: 'echo run >> count.txt; until [ -e gate ]; do sleep 0.1; done; echo done' },
        _meta: { 'toolgate/idempotency_key': 'stdio-1' },
      };
      const gaveUp = new AbortController();
      const first = client.callTool(params, { signal: gaveUp.signal }).catch(() => 'rejected');
      assert.ok(await waitFor(() => lines(join(d.workspace, 'count.txt')).length === 1, 20_000), 'the command started');
      gaveUp.abort();
      assert.equal(await first, 'rejected');
      const second = client.callTool(params);
      await new Promise((r) => setTimeout(r, 300));
      writeFileSync(join(d.workspace, 'gate'), '');
      const result = await second;
      assert.equal(result.isError ?? false, false, textOf(result));
      assert.equal(result._meta?.['toolgate/attached'], true);
      const again = await client.callTool(params);
      assert.equal(again._meta?.['toolgate/receipt_id'], result._meta?.['toolgate/receipt_id']);
      assert.deepEqual(lines(join(d.workspace, 'count.txt')), ['run']);
    } finally {
      await client.close();
      d.cleanup();
    }
  });
});

describe('a keyed call whose session ended', () => {
  let s: Served;
  before(async () => (s = await serve('tg-session-end')));
  after(async () => s.close());

  it('is stopped when the session ends, without waiting for the grace (60 s here): nobody can attach any more', async () => {
    const client = new Client({ name: 'session-end-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(s.serving.url));
    await client.connect(transport);
    const marker = newMarker();
    const gaveUp = new AbortController();
    const call = client
      .callTool(
        { name: 'shell_exec', arguments: { shell: 'bash', script: 'setsid sleep 1000 & sleep 1001', env: { set: { TG_MARKER: marker } } }, _meta: { 'toolgate/idempotency_key': `k-${marker}` } },
        { signal: gaveUp.signal },
      )
      .catch(() => 'rejected');
    assert.ok(await waitFor(() => sleepersWithMarker(marker).length >= 2, 20_000), 'the command started');
    gaveUp.abort();
    assert.equal(await call, 'rejected');
    await transport.terminateSession();
    await client.close();
    assert.ok(await waitFor(() => processesWithMarker(marker).length === 0, 20_000), 'the command was stopped');
    assert.ok(await waitFor(async () => (await s.rt.store.listReceipts({})).some((r) => r.idempotency_key === `k-${marker}` && r.status === 'cancelled'), 20_000), 'a cancelled receipt');
  });
});

describe('a keyed call whose client never comes back', () => {
  let s: Served;
  before(async () => (s = await serve('tg-detach', 300)));
  after(async () => s.close());

  it('is stopped after the grace: a cancelled receipt, no process of the command left', async () => {
    const client = new Client({ name: 'detach-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.serving.url)));
    try {
      const marker = newMarker();
      const key = `k-${marker}`;
      const gaveUp = new AbortController();
      const call = client
        .callTool(
          { name: 'shell_exec', arguments: { shell: 'bash', script: 'setsid sleep 1000 & sleep 1001', env: { set: { TG_MARKER: marker } } }, _meta: { 'toolgate/idempotency_key': key } },
          { signal: gaveUp.signal },
        )
        .catch(() => 'rejected');
      assert.ok(await waitFor(() => sleepersWithMarker(marker).length >= 2, 20_000), 'the command started');
      gaveUp.abort();
      assert.equal(await call, 'rejected');
      assert.ok(await waitFor(async () => (await s.rt.store.listReceipts({})).some((r) => r.idempotency_key === key), 20_000), 'the call ended with a receipt');
      assert.deepEqual(processesWithMarker(marker), []);
      const receipt = (await s.rt.store.listReceipts({})).find((r) => r.idempotency_key === key);
      assert.equal(receipt?.status, 'cancelled');
      assert.equal(receipt?.error?.code, 'cancelled');
      assert.equal(receipt?.error?.data['process_left'], false);
    } finally {
      await client.close();
    }
  });
});

describe('shell_exec as an MCP task (2025-11-25, SDK 1.32 client)', () => {
  let s: Served;
  let client: Sdk1Client;
  before(async () => {
    s = await serve('tg-mcp-tasks');
    client = new Sdk1Client({ name: 'tasks-test', version: '1.0.0' });
    await client.connect(new Sdk1HttpTransport(new URL(s.serving.url)));
  });
  after(async () => {
    await client.close();
    await s.close();
  });

  it('lists shell_exec with optional task support and the server with the tasks capability', async () => {
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.find((t) => t.name === 'shell_exec')?.execution, { taskSupport: 'optional' });
    assert.equal(tools.find((t) => t.name === 'fs_read')?.execution, undefined);
  });

  it('create, get, list, result: the task answers at once, reports progress, and its result carries the receipt', async () => {
    const gate = join(s.workspace, 'task-gate');
    const count = join(s.workspace, 'task-count.txt');
    const progress: string[] = [];
    const created = await client.request(
      { method: 'tools/call', params: { name: 'shell_exec', arguments: { shell: 'bash', script: 'echo run >> task-count.txt; until [ -e task-gate ]; do sleep 0.1; done; echo finished' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
      { onprogress: (p) => void progress.push(p.message ?? '') },
    );
    const { taskId } = created.task;
    assert.equal(created.task.status, 'working');
    assert.equal(created.task.ttl, 60_000);
    const working = await client.experimental.tasks.getTask(taskId);
    assert.equal(working.status, 'working');
    const listed = await client.experimental.tasks.listTasks();
    assert.ok(listed.tasks.some((t) => t.taskId === taskId));
    assert.ok(await waitFor(() => lines(count).length === 1, 20_000), 'the command started');
    writeFileSync(gate, '');
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError ?? false, false, textOf(result));
    assert.match(textOf(result), /finished/);
    assert.deepEqual(result._meta?.['io.modelcontextprotocol/related-task'], { taskId });
    const receiptId = result._meta?.['toolgate/receipt_id'];
    assert.equal(typeof receiptId, 'string');
    const receipt = await s.rt.getReceipt(receiptId as string);
    assert.equal(receipt?.status, 'succeeded');
    const done = await client.experimental.tasks.getTask(taskId);
    assert.equal(done.status, 'completed');
    assert.match(done.statusMessage ?? '', new RegExp(`receipt ${receiptId as string}`));
    assert.deepEqual(lines(count), ['run']);
    // The progress token of the tools/call stays valid for the task's life (spec).
    assert.ok(await waitFor(() => progress.some((m) => m.startsWith('stdout')), 10_000), `progress after the task was created: ${JSON.stringify(progress)}`);
  });

  it('tasks/cancel stops the command (no process left) and the result is the cancelled receipt; a second cancel is -32602', async () => {
    const marker = newMarker();
    const created = await client.request(
      { method: 'tools/call', params: { name: 'shell_exec', arguments: { shell: 'bash', script: 'trap "" TERM; setsid sleep 1000 & sleep 1001', env: { set: { TG_MARKER: marker } } }, task: {} } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    assert.ok(await waitFor(() => sleepersWithMarker(marker).length >= 2, 20_000), 'the command started');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    // Answered once the call ended: nothing of the command is left by then.
    assert.deepEqual(processesWithMarker(marker), []);
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.equal(result._meta?.['toolgate/status'], 'cancelled');
    assert.equal((result.structuredContent as { error: { code: string } }).error.code, 'cancelled');
    assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
    await assert.rejects(client.experimental.tasks.cancelTask(taskId), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  });

  it('a 2026-07-28 client is offered no tasks (they left the core there): no capability, no execution in tools/list', async () => {
    const modern = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(s.serving.url)));
    try {
      assert.equal(modern.getServerCapabilities()?.tasks, undefined);
      const { tools } = await modern.listTools();
      assert.ok(tools.some((t) => t.name === 'shell_exec'));
      assert.ok(tools.every((t) => t.execution === undefined));
    } finally {
      await modern.close();
    }
  });

  it('an unknown task is -32602; a task for a tool without task support is -32601', async () => {
    await assert.rejects(client.experimental.tasks.getTask('no-such-task'), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
    await assert.rejects(
      client.request({ method: 'tools/call', params: { name: 'fs_read', arguments: { path: 'x' }, task: {} } }, CreateTaskResultSchema),
      (e: unknown) => e instanceof McpError && e.code === ErrorCode.MethodNotFound,
    );
  });
});
