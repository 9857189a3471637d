import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolgateError } from '../../src/protocol/index.js';
import { Sandbox, SandboxSession } from '../../src/sandbox/index.js';

// This process's own: other test files run at the same time and make theirs (toolgate-session-<pid>-…).
const fifoDirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith(`toolgate-session-${process.pid}-`));
const allFifoDirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith('toolgate-session-'));

describe('a session sandbox that cannot start', () => {
  it('is a typed execution_failed and leaves no FIFO directory, placeholder or process', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-session-start-')));
    const workspace = join(base, 'ws');
    mkdirSync(workspace);
    const before = new Set(fifoDirs());
    try {
      // An "bubblewrap" that exits at once: the driver never reports ready.
      const sandbox = new Sandbox({ workspace, bwrapPath: '/bin/false' });
      await assert.rejects(
        SandboxSession.open(sandbox, { cwd: workspace, env: { PATH: '/usr/bin:/bin' }, workspaceWritable: true, toolchainEnv: false }),
        (e: unknown) => ToolgateError.isInstance(e) && e.code === 'execution_failed',
      );
      assert.deepEqual(fifoDirs().filter((d) => !before.has(d)), []);
      assert.deepEqual(readdirSync(workspace), [], 'no .git or config placeholder is left');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('FIFO directories of a runtime that died', () => {
  it('are removed when the next session opens; a live runtime’s are kept', async () => {
    const { spawnSync } = await import('node:child_process');
    const dead = spawnSync('true').pid as number; // exited and reaped: its pid names no process
    const abandoned = join(tmpdir(), `toolgate-session-${dead}-abc123`);
    const live = join(tmpdir(), `toolgate-session-${process.pid}-keepme`);
    mkdirSync(abandoned);
    mkdirSync(live);
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-session-sweep-')));
    const workspace = join(base, 'ws');
    mkdirSync(workspace);
    try {
      const sandbox = new Sandbox({ workspace });
      const session = await SandboxSession.open(sandbox, { cwd: workspace, env: { PATH: '/usr/bin:/bin' }, workspaceWritable: false, toolchainEnv: false });
      await session.end('closed');
      assert.equal(allFifoDirs().includes(`toolgate-session-${dead}-abc123`), false);
      assert.equal(fifoDirs().includes(`toolgate-session-${process.pid}-keepme`), true);
    } finally {
      rmSync(live, { recursive: true, force: true });
      rmSync(abandoned, { recursive: true, force: true });
      rmSync(base, { recursive: true, force: true });
    }
  });
});
