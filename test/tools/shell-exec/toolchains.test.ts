import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, ToolgateError, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import { defaultHomes } from '../../../src/sandbox/index.js';
import { createShellExec } from '../../../src/tools/shell-exec/tool.js';
import type { ShellExecResult } from '../../../src/tools/shell-exec/schema.js';
import { runtimeOptions } from '../../../src/cli/open-runtime.js';
import { HOST_PYTHON, makeFakeHome, type FakeHome } from '../../sandbox/fake-home.js';
import { GRANT } from './rig.js';

interface Rig {
  readonly rt: Runtime;
  readonly workspace: string;
  /** A home with ordinary entries (dot-entries hidden one by one) and one of dot-entries only (one tmpfs). */
  readonly homes: readonly [FakeHome, FakeHome];
  exec(script: string, home: FakeHome, extra?: Record<string, unknown>): Promise<Receipt>;
  done(): Promise<void>;
}

async function rig(o: { extra?: string[] } = {}): Promise<Rig> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-toolchain-')));
  const workspace = join(base, 'ws');
  mkdirSync(workspace);
  const homes = [makeFakeHome(join(base, 'home', 'dev')), makeFakeHome(join(base, 'home', 'dots'), { onlyDots: true })] as const;
  const rt = await createRuntime({
    workspace,
    stateDir: join(base, 'state'),
    // The fake homes first, so their toolchains come first on PATH; the real ones stay hidden as always.
    tools: [createShellExec({ graceMs: 300, homes: [...homes.map((h) => h.home), ...defaultHomes()], ...(o.extra ? { toolchains: { extra: o.extra } } : {}) }) as never],
    grant: GRANT,
  });
  let seq = 0;
  return {
    rt,
    workspace,
    homes,
    // HOME is the fake home, so `~` in the script means it, as in the agent's own shell.
    exec: (script, home, extra = {}) =>
      rt.call({
        protocol_version: PROTOCOL_VERSION,
        task_id: 'task-toolchain',
        tool: 'shell.exec',
        arguments: { shell: 'bash', script, env: { set: { HOME: home.home } }, ...extra },
        idempotency_key: `k${seq++}`,
      }),
    done: async () => {
      await rt.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

const resultOf = (r: Receipt): ShellExecResult => {
  assert.notEqual(r.result, null, JSON.stringify(r.error));
  return r.result as ShellExecResult;
};

/** Canaries of every planted credential found anywhere in the receipt (result, error, notes). */
function crossings(receipt: unknown, homes: readonly FakeHome[]): string[] {
  const text = JSON.stringify(receipt);
  return homes.flatMap((h) => [...h.canaries].filter(([, canary]) => text.includes(canary)).map(([rel]) => `${h.home}/${rel}`));
}

test('a pyenv, cargo, nvm and ~/.local/bin toolchain of the home runs in shell.exec, from PATH, in both kinds of home', { skip: !existsSync(HOST_PYTHON) && `no ${HOST_PYTHON}` }, async () => {
  const r = await rig();
  try {
    for (const home of r.homes) {
      const receipt = await r.exec("command -v python3; python3 -c 'print(1)'; cargo; node; mytool; echo \"PYENV_ROOT=$PYENV_ROOT\"", home);
      const res = resultOf(receipt);
      assert.equal(receipt.status, 'succeeded', res.stderr.preview);
      assert.equal(
        res.stdout.preview,
        [
          `${home.home}/.pyenv/shims/python3`,
          '1',
          'cargo from the fake home',
          `node v20.99.0 from nvm, NVM_DIR=${home.home}/.nvm`,
          'mytool from ~/.local/bin',
          `PYENV_ROOT=${home.home}/.pyenv`,
          '',
        ].join('\n'),
      );
    }
    // argv form: the command itself is found on the extended PATH (resolved before the spawn).
    const argv = await r.rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'task-toolchain', tool: 'shell.exec', arguments: { argv: ['python3', '-c', 'print(2)'] } });
    assert.equal(resultOf(argv).stdout.preview, '2\n');
    // A PATH the call sets is taken as given: no toolchain ahead of it.
    const own = await r.exec('echo "$PATH"', r.homes[0], { env: { set: { HOME: r.homes[0].home, PATH: '/usr/bin:/bin' } } });
    assert.equal(resultOf(own).stdout.preview, '/usr/bin:/bin\n');
  } finally {
    await r.done();
  }
});

test('credential stores stay hidden, also inside exposed toolchains: by name, link, listing, find, grep and archive, 0 crossings', async () => {
  const r = await rig();
  try {
    let total = 0;
    for (const home of r.homes) {
      const names = [...home.canaries.keys()].map((rel) => `"$HOME/${rel}"`);
      const script = [
        `cat ${names.join(' ')}`,
        'python3 -c \'import os,sys; [print(open(p).read()) for p in sys.argv[1:] if os.path.exists(p)]\' ' + names.join(' '),
        // The agent's side: links from the workspace to the stores, and to the home itself.
        'ln -s ~/.aws awslink; ln -s ~/.ssh/id_ed25519 keylink; ln -s ~ homelink',
        'cat awslink/credentials keylink homelink/.npmrc homelink/.cargo/credentials.toml',
        'ls -la ~ ~/.cargo ~/.local ~/.config ~/.pyenv/versions/3.99.0 ~/.nvm/versions/node/v20.99.0/etc',
        'find ~ -name credentials -o -name "credentials*" -o -name "id_*" -o -name "*npmrc" -o -name pip.conf | while read -r f; do echo "found $f"; cat "$f"; done',
        'grep -ra tgcanary ~ /tmp 2>&1',
        'tar cf - -C ~ . 2>/dev/null | grep -a tgcanary',
        'cd ~/.cargo && cat credentials.toml credentials',
        'true',
      ].join('; ');
      const receipt = await r.exec(script, home);
      const res = resultOf(receipt);
      assert.equal(res.stdout.artifact, null, 'the whole output is in the receipt');
      assert.equal(res.stderr.artifact, null);
      const leaked = crossings(receipt, [home]);
      total += leaked.length;
      assert.deepEqual(leaked, [], 'credential canaries that reached the receipt');
      // Controls: the toolchains are listed where they are; the stores hidden whole are empty
      // or absent, and a masked file inside a toolchain is /dev/null (a name, no contents).
      assert.match(res.stdout.preview, /\.pyenv/);
      assert.doesNotMatch(res.stdout.preview, /found .*(\.aws|\.ssh|\.cargo)\//);
      assert.match(res.stdout.preview, /crw-rw-rw- +1 root root 1, 3 .* pip\.conf\n/);
    }
    assert.equal(total, 0);
  } finally {
    await r.done();
  }
});

test('exposed toolchain directories are read-only: every write fails and the host files stay as they were', async () => {
  const r = await rig();
  try {
    for (const home of r.homes) {
      const before = home.snapshot();
      const writes = [
        'touch ~/.pyenv/new',
        'echo evil > ~/.pyenv/shims/python3',
        'rm ~/.pyenv/versions/3.99.0/bin/python3',
        'mv ~/.cargo/bin/cargo ~/.cargo/bin/cargo.old',
        'echo evil > ~/.nvm/versions/node/v20.99.0/bin/node',
        'mkdir ~/.local/bin/d',
        'echo x > ~/.pyenv/versions/3.99.0/pip.conf',
        'echo x > ~/.nvm/versions/node/v20.99.0/etc/npmrc',
      ];
      const receipt = await r.exec(writes.map((w) => `if ${w}; then echo "WROTE: ${w}"; fi`).join('; ') + '; true', home);
      const res = resultOf(receipt);
      assert.doesNotMatch(res.stdout.preview, /WROTE/);
      assert.match(res.stderr.preview, /Read-only file system/);
      assert.deepEqual(home.snapshot(), before);
      assert.ok(!existsSync(join(home.home, '.pyenv/new')));
      assert.ok(!existsSync(join(home.home, '.local/bin/d')));
      // The hidden parent of a toolchain (~/.cargo around ~/.cargo/bin) is a private tmpfs: a
      // file written there lands nowhere on the host.
      assert.equal(resultOf(await r.exec('echo x > ~/.cargo/credentials.toml && cat ~/.cargo/credentials.toml', home)).stdout.preview, 'x\n');
      for (const [rel, canary] of home.canaries) assert.equal(readFileSync(join(home.home, rel), 'utf8'), `${canary}\n`, rel);
    }
  } finally {
    await r.done();
  }
});

test('a configured toolchain directory is shown and put on PATH', async () => {
  const r = await rig({ extra: ['~/.mytools'] });
  try {
    for (const home of r.homes) {
      mkdirSync(join(home.home, '.mytools/bin'), { recursive: true });
      writeFileSync(join(home.home, '.mytools/bin/hello'), '#!/bin/sh\necho configured toolchain\n', { mode: 0o755 });
      const res = resultOf(await r.exec('hello; touch ~/.mytools/x || echo read-only', home));
      assert.equal(res.stdout.preview, 'configured toolchain\nread-only\n');
    }
  } finally {
    await r.done();
  }
});

test('a configured entry that would expose a credential store is refused at start with a typed error', async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-toolchain-cfg-')));
  try {
    const home = makeFakeHome(join(base, 'home'));
    symlinkSync(join(home.home, '.ssh'), join(home.home, 'tools'));
    const refused: Array<[string, string | null, string]> = [
      ['~/.aws', join(home.home, '.aws'), 'exposes_credentials'],
      ['~/.aws/cli', join(home.home, '.aws'), 'exposes_credentials'],
      ['~', join(home.home, '.ssh'), 'exposes_credentials'],
      ['~/.config', join(home.home, '.config/gcloud'), 'exposes_credentials'],
      ['~/.cargo', join(home.home, '.cargo/credentials'), 'exposes_credentials'],
      ['~/.local', join(home.home, '.local/share/keyrings'), 'exposes_credentials'],
      [join(home.home, 'tools'), join(home.home, '.ssh'), 'exposes_credentials'],
      ['relative/bin', null, 'not_absolute'],
    ];
    for (const [entry, credential, reason] of refused) {
      assert.throws(
        () => createShellExec({ homes: [home.home], toolchains: { extra: [entry] } }),
        (e: unknown) => {
          assert.ok(ToolgateError.isInstance(e), String(e));
          assert.equal(e.code, 'invalid_resource');
          assert.equal((e.data as { option: string }).option, 'sandbox.toolchains');
          assert.equal((e.data as { reason: string }).reason, reason, entry);
          if (credential !== null) assert.ok((e.data as { credential: string }).credential.startsWith(credential), `${entry}: ${JSON.stringify(e.data)}`);
          assert.match(e.message, new RegExp(`sandbox.toolchains: ${entry.replace(/[.*]/g, '\\$&')}`));
          return true;
        },
      );
    }
    // The accepted ones: a bin directory, a toolchain of its own.
    createShellExec({ homes: [home.home], toolchains: { extra: ['~/.cargo/bin', '~/.pyenv', '/opt/tools/bin'] } });
    // From toolgate.config.json: the runtime does not open.
    const ws = join(base, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'toolgate.config.json'), JSON.stringify({ state_dir: join(base, 'state'), sandbox: { toolchains: ['~/.ssh'] } }));
    const opts = runtimeOptions({ workspace: ws });
    await assert.rejects(createRuntime(opts), (e: unknown) => ToolgateError.isInstance(e) && e.code === 'invalid_resource' && (e.data as { reason: string }).reason === 'exposes_credentials');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('run as the workspace owner (not root): the toolchains that user can reach are shown and on PATH, those of a closed home are not', async () => {
  const r = await rig();
  try {
    const uid = 1000;
    chmodSync(join(r.workspace, '..'), 0o755); // mkdtemp's 0700 would stop uid 1000 before the workspace
    chownSync(r.workspace, uid, uid);
    const [open, closed] = r.homes;
    chmodSync(closed.home, 0o700); // root's, closed: bubblewrap as uid 1000 could not mount there
    const res = resultOf(await r.exec('id -u; command -v mytool; mytool; echo "$PATH"; cat ~/.aws/credentials ~/.npmrc 2>&1 | grep -c tgcanary; true', open));
    const [id, where, says, path] = res.stdout.preview.split('\n');
    assert.equal(res.exit_code, 0, res.stderr.preview);
    assert.equal(res.isolation.uid, uid);
    assert.equal(id, String(uid));
    assert.equal(where, `${open.home}/.local/bin/mytool`);
    assert.equal(says, 'mytool from ~/.local/bin');
    assert.ok(!path?.includes(closed.home), `PATH names the closed home: ${path}`);
    assert.equal(res.stdout.preview.split('\n')[4], '0', 'no canary read');
    assert.deepEqual(crossings(res, r.homes), []);
    assert.deepEqual(crossings(await r.exec(`cat ${closed.home}/.local/bin/mytool ${closed.home}/.aws/credentials; true`, open), r.homes), []);
    // The workspace's cache folder lies in root's private state dir, out of this user's reach: the
    // cache variables point at the sandbox's own /run, which this user can write (not kept).
    const cache = resultOf(await r.exec('echo "$npm_config_cache"; mkdir -p "$npm_config_cache" && touch "$npm_config_cache/x" && echo wrote', open));
    assert.equal(cache.exit_code, 0, cache.stderr.preview);
    assert.deepEqual(cache.stdout.preview.split('\n').slice(0, 2), ['/run/toolgate-cache/npm', 'wrote']);
  } finally {
    await r.done();
  }
});
