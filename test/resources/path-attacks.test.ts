// Every way out of the workspace that a path can try, through the real pipeline (fs.read).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync, linkSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';

const SECRET = 'OUTSIDE-SECRET-7d1f';

async function setup(): Promise<{ rt: Runtime; base: string; ws: string; done: () => Promise<void> }> {
  const d = tempDirs();
  const ws = d.workspace; // <base>/ws
  mkdirSync(join(d.base, 'outside'));
  writeFileSync(join(d.base, 'outside', 'secret.txt'), SECRET);
  for (const sibling of ['ws_evil', 'ws"', 'ws ', 'ws.bak']) {
    mkdirSync(join(d.base, sibling));
    writeFileSync(join(d.base, sibling, 'secret.txt'), SECRET);
  }
  mkdirSync(join(ws, 'sub'));
  writeFileSync(join(ws, 'sub', 'inside.txt'), 'inside\n');
  const rt = await createRuntime({ workspace: ws, stateDir: d.state });
  return { rt, base: d.base, ws, done: async () => { await rt.close(); d.cleanup(); } };
}

async function read(rt: Runtime, path: string): Promise<{ status: string; code: string | undefined; content: string | undefined }> {
  const r = await rt.call(envelope('fs.read', { path }));
  const content = (r.result as { content?: string } | null)?.content;
  return { status: r.status, code: r.error?.code, content };
}

test('lexical escapes are path_escape: .., absolute paths, sibling prefixes', async () => {
  const s = await setup();
  try {
    const cases = [
      '../outside/secret.txt',
      'sub/../../outside/secret.txt',
      '/etc/passwd',
      join(s.base, 'outside', 'secret.txt'),
      join(s.base, 'ws_evil', 'secret.txt'),
      join(s.base, 'ws"', 'secret.txt'),
      join(s.base, 'ws ', 'secret.txt'),
      join(s.base, 'ws.bak', 'secret.txt'),
      '../ws_evil/secret.txt',
      '../ws /secret.txt',
    ];
    for (const p of cases) {
      const r = await read(s.rt, p);
      assert.equal(r.code, 'path_escape', `${p} → ${r.code}`);
      assert.equal(r.status, 'denied');
      assert.notEqual(r.content, SECRET);
    }
    // The root's own absolute spelling is accepted and normalized.
    const ok = await s.rt.call(envelope('fs.read', { path: join(s.ws, 'sub', 'inside.txt') }));
    assert.equal(ok.status, 'succeeded');
    assert.deepEqual(ok.normalized_action?.resources, [{ kind: 'path', path: 'sub/inside.txt', access: 'read' }]);
  } finally {
    await s.done();
  }
});

test('links that leave the root are refused, directly, through a chain, and as a parent', async () => {
  const s = await setup();
  try {
    symlinkSync(join(s.base, 'outside'), join(s.ws, 'abs-dir'));
    symlinkSync('../outside/secret.txt', join(s.ws, 'rel-file'));
    symlinkSync('hop2', join(s.ws, 'hop1'));
    symlinkSync('sub/../../outside', join(s.ws, 'hop2'));
    symlinkSync('../../outside', join(s.ws, 'sub', 'up'));
    for (const p of ['abs-dir/secret.txt', 'rel-file', 'hop1/secret.txt', 'sub/up/secret.txt']) {
      const r = await read(s.rt, p);
      assert.equal(r.code, 'path_escape', `${p} → ${r.code}`);
      assert.notEqual(r.content, SECRET);
    }
  } finally {
    await s.done();
  }
});

test('dangling links: not_found inside the root, path_escape when they point out', async () => {
  const s = await setup();
  try {
    symlinkSync('missing.txt', join(s.ws, 'dangling'));
    symlinkSync('../../nowhere', join(s.ws, 'dangling-out'));
    assert.equal((await read(s.rt, 'dangling')).code, 'not_found');
    assert.equal((await read(s.rt, 'dangling-out')).code, 'path_escape');
  } finally {
    await s.done();
  }
});

test('links inside the root resolve to their canonical target, which is what gets authorized', async () => {
  const s = await setup();
  try {
    symlinkSync('sub/inside.txt', join(s.ws, 'alias'));
    symlinkSync('sub', join(s.ws, 'subalias'));
    const r = await s.rt.call(envelope('fs.read', { path: 'alias' }));
    assert.equal(r.status, 'succeeded');
    assert.equal((r.result as { path: string }).path, 'sub/inside.txt');
    const r2 = await s.rt.call(envelope('fs.read', { path: 'subalias/inside.txt' }));
    assert.deepEqual(r2.normalized_action?.resources, [{ kind: 'path', path: 'sub/inside.txt', access: 'read' }]);
  } finally {
    await s.done();
  }
});

test('a hard link is the same file: it reads as its workspace path (documented in docs/paths.md)', async () => {
  const s = await setup();
  try {
    linkSync(join(s.base, 'outside', 'secret.txt'), join(s.ws, 'hard'));
    const r = await read(s.rt, 'hard');
    // Reading a hard link is reading the inode the workspace holds; no path leaves the root.
    assert.equal(r.status, 'succeeded');
  } finally {
    await s.done();
  }
});

test('malformed paths are invalid_resource: empty, NUL, overlong', async () => {
  const s = await setup();
  try {
    assert.equal((await read(s.rt, 'a\0b')).code, 'invalid_resource');
    assert.equal((await read(s.rt, 'x'.repeat(300))).code, 'invalid_resource');
    assert.equal((await s.rt.call(envelope('fs.read', { path: '' }))).error?.code, 'invalid_arguments');
  } finally {
    await s.done();
  }
});
