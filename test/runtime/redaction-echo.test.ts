import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ECHO_MAX_CHARS, MAX_FAULTS, PROTOCOL_VERSION, type Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';

// A refusal echoes what the caller sent, bounded: a prefix and the digest of the whole value.

const BIG = 10 * 1024 * 1024;
/** Far above any bounded echo, far below the 10 MB input. */
const RECEIPT_LIMIT = 64 * 1024;

async function withRuntime(fn: (rt: Runtime) => Promise<void>): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'tg-echo-'));
  mkdirSync(join(base, 'ws'));
  const rt = await createRuntime({ workspace: join(base, 'ws'), stateDir: join(base, 'state') });
  try {
    await fn(rt);
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
}

const size = (r: Receipt): number => Buffer.byteLength(JSON.stringify(r));
const env = (extra: Record<string, unknown>): Record<string, unknown> => ({ protocol_version: PROTOCOL_VERSION, task_id: 'echo', tool: 'fs.read', arguments: { path: 'a' }, ...extra });

test('a 10 MB protocol_version is refused with a bounded echo: a prefix and the digest of all of it', async () => {
  await withRuntime(async (rt) => {
    const version = 'v'.repeat(BIG);
    const r = await rt.call(env({ protocol_version: version }));
    assert.equal(r.error?.code, 'unsupported_protocol_version');
    assert.ok(size(r) < RECEIPT_LIMIT, `receipt is ${size(r)} bytes`);
    const received = r.error?.data['received'] as string;
    assert.ok(received.startsWith('v'.repeat(ECHO_MAX_CHARS)));
    assert.ok(received.includes(createHash('sha256').update(version).digest('hex')), 'the digest names the whole value');
    const objectVersion = await rt.call(env({ protocol_version: { v: 'x'.repeat(BIG) } }));
    assert.equal(objectVersion.error?.code, 'unsupported_protocol_version');
    assert.ok(size(objectVersion) < RECEIPT_LIMIT);
  });
});

test('unknown fields with huge names, 100,000 of them, and a huge tool name are refused with bounded faults', async () => {
  await withRuntime(async (rt) => {
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) many[`k${i}`] = i;
    const wide = await rt.call(env({ ...many }));
    assert.equal(wide.error?.code, 'invalid_request');
    const faults = wide.error?.data['faults'] as { pointer: string; message: string }[];
    assert.equal(faults.length, MAX_FAULTS + 1, 'MAX_FAULTS listed, the rest counted');
    assert.match(faults[MAX_FAULTS]?.message ?? '', /^99950 more fault/);
    assert.ok(size(wide) < RECEIPT_LIMIT, `receipt is ${size(wide)} bytes`);

    const longKey = await rt.call(env({ ['k'.repeat(BIG)]: 1 }));
    assert.equal(longKey.error?.code, 'invalid_request');
    assert.ok(size(longKey) < RECEIPT_LIMIT, `receipt is ${size(longKey)} bytes`);

    const tool = await rt.call(env({ tool: `a.${'b'.repeat(BIG)}` }));
    assert.equal(tool.error?.code, 'invalid_request');
    assert.ok(size(tool) < RECEIPT_LIMIT, `receipt is ${size(tool)} bytes`);
    assert.ok(tool.tool.length <= 200);
  });
});

test('invalid arguments echo bounded pointers; a huge path in a refusal is bounded too', async () => {
  await withRuntime(async (rt) => {
    const args = await rt.call(env({ arguments: { path: 'a', ['p'.repeat(BIG)]: 1 } }));
    assert.equal(args.error?.code, 'invalid_arguments');
    assert.ok(size(args) < RECEIPT_LIMIT, `receipt is ${size(args)} bytes`);
    const path = await rt.call(env({ arguments: { path: `${'d/'.repeat(BIG / 4)}x` } }));
    assert.ok(path.error !== null);
    assert.ok(size(path) < RECEIPT_LIMIT, `receipt is ${size(path)} bytes (${path.error?.code})`);
  });
});
