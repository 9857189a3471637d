import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolgateError } from '../../src/protocol/index.js';
import { Sandbox, SandboxSession } from '../../src/sandbox/index.js';

const fifoDirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith('toolgate-session-'));

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
