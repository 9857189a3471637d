// The property behind shell intent: no generated script runs a program its normalized intent
// does not name. Each script is built from harmless programs, wrappers and every compound form,
// run for real in the bubblewrap sandbox under `strace -f -e trace=execve`, and every program
// that was executed (a successful execve) must be one the intent lists, or one of the wrappers
// it lists them under.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Sandbox } from '../../../src/sandbox/index.js';
import { shellIntent } from '../../../src/resources/shell/intent.js';
import { ProgramResolver } from '../../../src/resources/shell/programs.js';
import { tempWorkspace } from '../../sandbox/fixtures.js';

const PATH = '/usr/bin:/bin';
const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

const simple = fc.constantFrom('true', 'id -u', 'date +%s', 'ls /', 'cat /dev/null', 'uname', 'whoami', 'printf x', 'echo hi', 'sleep 0', 'basename /a/b', '/usr/bin/env true', 'pwd');
const wrapped = fc.tuple(fc.constantFrom('env A=1 ', 'timeout 5 ', 'nice -n 1 ', 'command ', 'stdbuf -oL ', 'time ', 'nohup ', 'env -i timeout -s KILL 9 '), simple).map(([w, c]) => `${w}${c}`);

const script: fc.Arbitrary<string> = fc.letrec<{ s: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    simple,
    wrapped,
    fc.tuple(tie('s'), fc.constantFrom('; ', ' && ', ' || ', ' | '), tie('s')).map(([a, op, b]) => `${a}${op}${b}`),
    tie('s').map((a) => `( ${a} )`),
    tie('s').map((a) => `{ ${a}; }`),
    tie('s').map((a) => `echo "$( ${a} )"`), // spaced: `$((` is arithmetic (tested in intent.test.ts)
    tie('s').map((a) => `cat <(${a})`),
    tie('s').map((a) => `sh -c ${quote(a)}`),
    tie('s').map((a) => `bash -c ${quote(a)}`),
    tie('s').map((a) => `eval ${quote(a)}`),
    fc.tuple(tie('s'), tie('s')).map(([a, b]) => `if ${a}; then ${b}; fi`),
    tie('s').map((a) => `for i in 1 2; do ${a}; done`),
    tie('s').map((a) => `f() { ${a}; }; f`),
    simple.map((c) => `echo x | xargs ${c.split(' ')[0]} >/dev/null`),
    simple.map((c) => `find /dev/null -maxdepth 0 -exec ${c.split(' ')[0]} \\;`),
    tie('s').map((a) => `${a} &\nwait`),
  ),
})).s;

describe('shell intent against what really runs (strace in the sandbox)', () => {
  const ws = tempWorkspace('tg-intent-trace-');
  let sandbox: Sandbox;
  const resolver = new ProgramResolver({ path: PATH, cwd: ws.dir, writable: [ws.dir] });
  before(() => {
    sandbox = new Sandbox({ workspace: ws.dir });
  });
  after(() => ws.remove());

  async function executed(source: string): Promise<string[]> {
    const trace = join(ws.dir, 'trace');
    rmSync(trace, { force: true });
    const r = await sandbox.run({
      argv: ['/usr/bin/strace', '-f', '-qq', '-e', 'trace=execve', '-e', 'signal=none', '-o', trace, '/usr/bin/bash', '-c', source],
      cwd: ws.dir,
      env: { PATH },
      timeoutMs: 30_000,
    });
    assert.equal(r.reason, 'exited', `${source}: ${r.reason} ${r.stderr.preview}`);
    assert.ok(existsSync(trace), `no trace for ${source}: ${r.stderr.preview}`);
    const out: string[] = [];
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      const m = /execve\("([^"]+)".*\) = 0$/.exec(line);
      if (m) out.push(realpathSync(m[1] as string));
    }
    return out.slice(1); // the first is the bash running the script
  }

  it('no generated script runs a program its intent does not name (60 scripts)', async () => {
    let programsSeen = 0;
    await fc.assert(
      fc.asyncProperty(script, async (source) => {
        const intent = await shellIntent(source, { cwd: ws.dir, path: PATH, writable: [ws.dir] });
        assert.deepEqual(intent.unresolved, [], `${source}: every form generated here is resolvable`);
        const named = new Set<string>();
        for (const p of intent.programs) {
          if (p.path) named.add(p.path);
          for (const w of p.wrappers) {
            const word = w.split(' ')[0] as string;
            if (['eval', 'trap', 'alias', 'command', 'time', 'exec', 'builtin'].includes(word)) continue;
            const r = await resolver.resolve(word);
            if (r.path) named.add(r.path);
          }
        }
        const ran = await executed(source);
        programsSeen += ran.length;
        const unnamed = ran.filter((p) => !named.has(p));
        assert.deepEqual(unnamed, [], `${source} ran ${unnamed.join(', ')}; the intent named ${[...named].join(', ')}`);
      }),
      { numRuns: 60, seed: 1_907_2026, endOnFailure: true },
    );
    assert.ok(programsSeen > 60, `the scripts ran programs (${programsSeen}): the tracer saw them`);
  });
});
