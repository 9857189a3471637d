import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, resultOf, shellRig } from './rig.js';

// Each attack is run as a hostile agent would, through shell.exec; then the host does what an
// operator does next (a real `git commit`, a real start that reads toolgate.config.json).

/** A pre-commit hook that leaves a file on the host when it runs there. */
function hookScript(probe: string): string {
  return `printf '#!/bin/sh\\necho PWNED\\ntouch ${probe}\\n'`;
}

test('no shell attack on .git plants a hook that runs at the host\'s next git commit', async () => {
  const attacks = [
    // the reported one: move .git aside, copy it back writable, plant the hook
    (p: string) => `mv .git .gitx && cp -a .gitx .git && ${hookScript(p)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
    (p: string) => `${hookScript(p)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
    (p: string) => `rm -rf .git; git init -q . && ${hookScript(p)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
    (p: string) => `mkdir -p evil && ${hookScript(p)} > evil/pre-commit && chmod +x evil/pre-commit && git config core.hooksPath evil`,
    (p: string) => `mkdir -p evil && ${hookScript(p)} > evil/pre-commit && chmod +x evil/pre-commit && printf '[core]\\n\\thooksPath = evil\\n' >> .git/config`,
    (p: string) => `mv .git/hooks .git/h && mkdir .git/hooks && ${hookScript(p)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
    // replace .git with a gitfile that points at a planted repository
    (p: string) => `git init -q --bare evil.git && ${hookScript(p)} > evil.git/hooks/pre-commit && chmod +x evil.git/hooks/pre-commit && cp -a .git/. evil.git/ && ${hookScript(p)} > evil.git/hooks/pre-commit && mv .git .git-old && echo "gitdir: $PWD/evil.git" > .git`,
  ];
  const crossings: string[] = [];
  const exits: (number | null)[] = [];
  for (const [i, attack] of attacks.entries()) {
    const r = await shellRig({ git: true });
    try {
      const probe = join(r.base, 'pwned');
      const gitIno = statSync(join(r.workspace, '.git')).ino;
      const receipt = await r.exec(attack(probe));
      assert.equal(resultOf(receipt).isolation.workspace, 'read-write');
      exits.push(resultOf(receipt).exit_code);
      writeFileSync(join(r.workspace, 'control.txt'), 'x\n');
      try {
        git(r.workspace, 'add', 'control.txt');
        const out = git(r.workspace, 'commit', '-m', 'operator commit');
        if (/PWNED/.test(out) || existsSync(probe)) crossings.push(`attack ${i}: a planted hook ran on the host`);
      } catch (e) {
        crossings.push(`attack ${i}: the host's git failed: ${(e as Error).message.split('\n')[1] ?? ''}`);
      }
      if (!existsSync(join(r.workspace, '.git')) || statSync(join(r.workspace, '.git')).ino !== gitIno) crossings.push(`attack ${i}: .git was replaced`);
    } finally {
      await r.done();
    }
  }
  assert.deepEqual(crossings, []);
  assert.ok(exits.every((c) => c !== 0), `every attack fails inside: ${exits.join(' ')}`);
});

test('a worktree\'s .git file and a nested repository\'s .git stay as they were', async () => {
  const r = await shellRig({ workspace: (base) => join(base, 'wt') });
  try {
    const main = join(r.base, 'main');
    mkdirSync(main);
    git(main, 'init', '-q');
    writeFileSync(join(main, 'a.txt'), 'a\n');
    git(main, 'add', '.');
    git(main, 'commit', '-qm', 'init');
    // the rig's workspace is an empty directory: make it a linked worktree of `main`
    git(main, 'worktree', 'add', '-q', '-f', r.workspace);
    mkdirSync(join(r.workspace, 'vendor', 'lib'), { recursive: true });
    git(join(r.workspace, 'vendor', 'lib'), 'init', '-q');
    const probe = join(r.base, 'pwned');
    const receipt = await r.exec(
      [
        `mkdir -p evil/hooks && git init -q --bare evil.git; ${hookScript(probe)} > evil.git/hooks/pre-commit; chmod +x evil.git/hooks/pre-commit`,
        `echo "gitdir: $PWD/evil.git" > .git || echo refused-gitfile`,
        `mv .git .git-old || echo refused-move`,
        `${hookScript(probe)} > vendor/lib/.git/hooks/pre-commit || echo refused-nested`,
      ].join('; '),
    );
    assert.match(resultOf(receipt).stdout.preview, /refused-gitfile\nrefused-move\nrefused-nested\n/);
    assert.match(git(r.workspace, 'rev-parse', '--git-dir'), new RegExp(`${main}/.git/worktrees/`));
    writeFileSync(join(r.workspace, 'c.txt'), 'c\n');
    git(r.workspace, 'add', 'c.txt');
    git(r.workspace, 'commit', '-qm', 'operator commit in the worktree');
    writeFileSync(join(r.workspace, 'vendor', 'lib', 'n.txt'), 'n\n');
    git(join(r.workspace, 'vendor', 'lib'), 'add', 'n.txt');
    git(join(r.workspace, 'vendor', 'lib'), 'commit', '-qm', 'operator commit in the nested repo');
    assert.ok(!existsSync(probe), 'no hook ran on the host');
  } finally {
    await r.done();
  }
});

test('an absent toolgate.config.json and .git cannot be created from the shell, and nothing is left behind', async () => {
  const r = await shellRig();
  try {
    writeFileSync(join(r.workspace, 'wide.json'), '{}');
    const receipt = await r.exec(
      [
        `echo '{"grant":"wide.json"}' > toolgate.config.json || echo refused-write`,
        `echo '{}' > c.json; mv -f c.json toolgate.config.json || echo refused-rename`,
        `ln -sf wide.json toolgate.config.json || echo refused-link`,
        `python3 -c 'import os; os.rename("wide.json", "toolgate.config.json")' 2>/dev/null || echo refused-python`,
        `git init -q . || echo refused-git-init`,
        `mkdir -p .git/hooks || echo refused-mkdir`,
        'echo ok > allowed.txt',
      ].join('; '),
    );
    assert.equal(resultOf(receipt).exit_code, 0);
    assert.equal(resultOf(receipt).stdout.preview, 'refused-write\nrefused-rename\nrefused-link\nrefused-python\nrefused-git-init\nrefused-mkdir\n');
    assert.ok(existsSync(join(r.workspace, 'allowed.txt')), 'control: the workspace is writable');
    assert.ok(!existsSync(join(r.workspace, 'toolgate.config.json')), 'the config was not created, and no placeholder is left');
    assert.throws(() => lstatSync(join(r.workspace, '.git')), { code: 'ENOENT' });
  } finally {
    await r.done();
  }
});

test('while one run tries to create the config in a loop, others start and end: it is never created', async () => {
  const r = await shellRig();
  try {
    // Without a shared placeholder, the end of a short run would remove the mount point that
    // the long run's mask sits on, and the next try would create the file.
    const tries = 150;
    const long = r.exec(`for i in $(seq ${tries}); do (echo '{}' > toolgate.config.json) 2>/dev/null && echo CREATED; [ -e toolgate.config.json ] || echo ABSENT; sleep 0.02; done; echo done`, { timeout_ms: 60_000 });
    for (let i = 0; i < 8; i++) await r.exec('true');
    const receipt = await long;
    const out = resultOf(receipt).stdout.preview;
    assert.match(out, /done\n$/);
    assert.equal((out.match(/CREATED/g) ?? []).length, 0, 'creations inside the sandbox');
    assert.equal((out.match(/ABSENT/g) ?? []).length, 0, 'moments the masked path was missing inside');
    assert.ok(!existsSync(join(r.workspace, 'toolgate.config.json')));
  } finally {
    await r.done();
  }
});

test('a .git that is a symbolic link refuses the run: the link could be replaced', async () => {
  const r = await shellRig();
  try {
    mkdirSync(join(r.base, 'real.git'));
    symlinkSync(join(r.base, 'real.git'), join(r.workspace, '.git'));
    const receipt = await r.exec('echo ran');
    assert.equal(receipt.error?.code, 'unsupported');
    assert.deepEqual(receipt.error?.data, { path: '.git', reason: 'protected_link' });
  } finally {
    await r.done();
  }
});
