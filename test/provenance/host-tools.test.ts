// The host tools doctor reports and first receipts record: the binary that would run, found the
// way the runtime finds it, with its real bytes' digest (a planted look-alike shows up as itself).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { probeHostTools } from '../../src/provenance/index.js';
import { tempDirs } from '../support/fixtures.js';

const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const which = (cmd: string): string => execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim();

describe('host tools', () => {
  it('doctor --json lists bubblewrap, ripgrep, git, script and chromium with path, version and sha256 of the binary', () => {
    const d = tempDirs('tg-doctor-tools');
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../src/cli/main.ts'), 'doctor', '--json', '--workspace', d.workspace, '--state-dir', d.state], { encoding: 'utf8', timeout: 120_000 });
      const report = JSON.parse(r.stdout) as { host_tools: { name: string; path: string | null; resolved: string | null; version: string | null; sha256: string | null }[] };
      assert.deepEqual(report.host_tools.map((t) => t.name), ['bwrap', 'rg', 'git', 'script', 'chromium']);
      for (const [name, cmd] of [['bwrap', 'bwrap'], ['rg', 'rg'], ['git', 'git'], ['script', 'script']] as const) {
        const t = report.host_tools.find((x) => x.name === name);
        const path = which(cmd);
        assert.equal(t?.path, path);
        assert.equal(t?.resolved, realpathSync(path));
        assert.equal(t?.sha256, sha(realpathSync(path)));
        assert.equal(t?.version, execFileSync(path, ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim());
      }
      assert.match(report.host_tools.find((t) => t.name === 'script')?.version ?? '', /util-linux/);
    } finally {
      d.cleanup();
    }
  });

  it('a look-alike earlier on PATH is reported as what it is, through a link to its real file', async () => {
    const d = tempDirs('tg-fake-rg');
    try {
      const bin = join(d.base, 'bin');
      mkdirSync(bin);
      const fake = join(d.base, 'fake-rg');
      writeFileSync(fake, '#!/bin/sh\necho "ripgrep 99.0.0"\n');
      chmodSync(fake, 0o755);
      symlinkSync(fake, join(bin, 'rg'));
      const tools = await probeHostTools(`${bin}:/usr/bin:/bin`);
      const rg = tools.find((t) => t.name === 'rg');
      assert.deepEqual(rg, { name: 'rg', path: join(bin, 'rg'), resolved: fake, version: 'ripgrep 99.0.0', sha256: sha(fake) });
      const none = await probeHostTools(bin);
      assert.deepEqual(none.find((t) => t.name === 'git'), { name: 'git', path: null, resolved: null, version: null, sha256: null });
    } finally {
      d.cleanup();
    }
  });

  it('a probe kept in the cache file is reused while the tool’s file is unchanged, and made again when it changes', async () => {
    const d = tempDirs('tg-tools-cache');
    try {
      const bin = join(d.base, 'bin');
      mkdirSync(bin);
      const runs = join(d.base, 'runs');
      const fakeRg = (version: string): void => {
        writeFileSync(join(bin, 'rg'), `#!/bin/sh\necho run >> ${runs}\necho "ripgrep ${version}"\n`);
        chmodSync(join(bin, 'rg'), 0o755);
      };
      const ran = (): number => (readFileSync(runs, 'utf8').match(/run/g) ?? []).length;
      fakeRg('1.0.0');
      const cache = join(d.base, 'host-tools.json');
      const path = `${bin}:/usr/bin:/bin`;
      const first = await probeHostTools(path, cache);
      assert.equal(first.find((t) => t.name === 'rg')?.version, 'ripgrep 1.0.0');
      assert.equal(ran(), 1);
      // Another process, same files: nothing is run again, the answer is the same.
      assert.deepEqual(await probeHostTools(path, cache), first);
      assert.equal(ran(), 1);
      // The binary is replaced (its ctime moves even if its size and mtime were kept): probed again.
      const before = statSync(join(bin, 'rg'), { bigint: true });
      const times = join(d.base, 'times');
      writeFileSync(times, '');
      execFileSync('touch', ['-r', join(bin, 'rg'), times]); // nanosecond-exact copies of the times
      fakeRg('2.0.0');
      execFileSync('touch', ['-r', times, join(bin, 'rg')]);
      const after = statSync(join(bin, 'rg'), { bigint: true });
      assert.deepEqual([after.ino, after.size, after.mtimeNs], [before.ino, before.size, before.mtimeNs]);
      const second = await probeHostTools(path, cache);
      assert.equal(second.find((t) => t.name === 'rg')?.version, 'ripgrep 2.0.0');
      assert.equal(second.find((t) => t.name === 'rg')?.sha256, sha(join(bin, 'rg')));
      assert.equal(ran(), 2);
      // A torn cache is no cache.
      writeFileSync(cache, '[{"name": "rg", "fi');
      assert.deepEqual(await probeHostTools(path, cache), second);
      assert.equal(ran(), 3);
      // Without a cache file every probe runs the tool.
      await probeHostTools(path);
      assert.equal(ran(), 4);
    } finally {
      d.cleanup();
    }
  });
});
