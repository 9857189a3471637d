// Where nobody chose the audit key's place, an unusable default does not stop the runtime: it
// serves without checkpoints and says why (the CLI prints it at start, `audit verify` reports
// it). A key the operator named must work: its failure stops the runtime. Here the default
// location is made unusable the way a user meets it: a workspace that contains ~/.config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ToolgateError } from '../../../src/protocol/index.js';
import { createRuntime } from '../../../src/runtime/index.js';
import { envelope, tempDirs } from '../../support/fixtures.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

function withEnv<T>(env: Record<string, string | undefined>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const restore = (): void => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return run().finally(restore);
}

test('a default key location inside the workspace: the runtime serves without checkpoints and says why', async () => {
  const d = tempDirs('tg-audit-default');
  try {
    const config = join(d.workspace, '.config');
    mkdirSync(config);
    await withEnv({ XDG_CONFIG_HOME: config, TOOLGATE_AUDIT_KEY: undefined }, async () => {
      const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
      try {
        assert.equal(rt.audit, null);
        assert.match(rt.auditUnavailable ?? '', /outside the workspace/);
        assert.match(rt.auditUnavailable ?? '', /TOOLGATE_AUDIT_KEY/);
        assert.equal(rt.checkpoint(), null, 'no checkpoint is handed out');
        assert.equal((await rt.call(envelope('fs.list', { path: '.' }))).status, 'succeeded', 'it serves');
        assert.equal(existsSync(join(config, 'toolgate', 'audit-key')), false, 'no key was written into the workspace');
      } finally {
        await rt.close();
      }
    });

    // The CLI says so: audit verify names the reason, and a kept checkpoint it cannot check fails.
    const env = { ...process.env, XDG_CONFIG_HOME: config, TOOLGATE_AUDIT_KEY: '' };
    const verify = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--workspace', d.workspace, '--state-dir', d.state], { encoding: 'utf8', env, timeout: 60_000 });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /no checkpoints: .*outside the workspace/);
    const kept = join(d.base, 'kept.json');
    const withKept = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--workspace', d.workspace, '--state-dir', d.state, '--checkpoint', kept], { encoding: 'utf8', env, timeout: 60_000 });
    assert.equal(withKept.status, 1, withKept.stdout + withKept.stderr);
    assert.match(withKept.stdout, /NOT CHECKED/);
  } finally {
    d.cleanup();
  }
});

test('a key the operator named must work: inside the workspace it stops the runtime', async () => {
  const d = tempDirs('tg-audit-named');
  try {
    const inside = join(d.workspace, 'keys', 'audit-key');
    await withEnv({ TOOLGATE_AUDIT_KEY: inside }, async () => {
      await assert.rejects(createRuntime({ workspace: d.workspace, stateDir: d.state }), (e: unknown) => ToolgateError.isInstance(e) && e.code === 'invalid_resource');
    });
    await assert.rejects(createRuntime({ workspace: d.workspace, stateDir: d.state, audit: { keyFile: inside } }), (e: unknown) => ToolgateError.isInstance(e) && e.code === 'invalid_resource');
    assert.equal(existsSync(inside), false);
  } finally {
    d.cleanup();
  }
});
