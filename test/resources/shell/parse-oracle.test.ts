// The walk in src/resources/shell/parse.ts asks the parse tree less than a plain walk would (for
// speed: each Node property is a call into the wasm). It must see the same script: the same
// commands with their words, assignments and contexts, the same redirections, functions,
// aliases and errors, as the plain walk it replaced (reference-walk.ts), on generated scripts
// that use every form the walk handles, and on random bash-ish text full of syntax errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseBash } from '../../../src/resources/shell/parse.js';
import { referenceParseBash } from './reference-walk.js';

const word = fc.constantFrom('ls', 'cat', 'x', '"a b"', "'q'", '$V', '${V:-d}', '~/f', '*.ts', '{a,b}', "$'\\x41'", 'a\\ b', '--flag=1', '$(date)', '`id`', '<(true)', '"$(id -u)"');
const simple = fc.tuple(fc.constantFrom('', 'A=1 ', 'A=$(id) B=2 '), fc.array(word, { minLength: 1, maxLength: 4 })).map(([a, ws]) => `${a}${ws.join(' ')}`);
const redirect = fc.constantFrom(' > out', ' >> log', ' < in', ' 2>&1', ' &> all', ' <> rw', ' <<< "$(id)"', ' >| f', ' 3> "$F"');
const line: fc.Arbitrary<string> = fc.letrec<{ s: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small' },
    simple,
    fc.tuple(simple, redirect).map(([c, r]) => c + r),
    fc.tuple(tie('s'), fc.constantFrom('; ', ' && ', ' || ', ' | ', ' & ', ' |& ', '\n'), tie('s')).map(([a, op, b]) => `${a}${op}${b}`),
    tie('s').map((a) => `( ${a} )`),
    tie('s').map((a) => `{ ${a}; }`),
    tie('s').map((a) => `${a} &`),
    tie('s').map((a) => `echo "$( ${a} )"`),
    tie('s').map((a) => `diff <(${a}) >(cat)`),
    fc.tuple(tie('s'), tie('s')).map(([a, b]) => `if ${a}; then ${b}; else true; fi`),
    tie('s').map((a) => `while false; do ${a}; done`),
    tie('s').map((a) => `for i in 1 2; do ${a}; done`),
    tie('s').map((a) => `case $x in a) ${a};; *) true;; esac`),
    tie('s').map((a) => `f() { ${a}; }; f`),
    tie('s').map((a) => `cat <<EOF\n$( ${a} )\nEOF`),
    tie('s').map((a) => `cat <<'EOF'\n$( ${a} )\nEOF`),
    fc.constantFrom('alias ll="ls -l"; ll', 'eval "$x"', 'source ./env.sh', '. ./x', '[[ -f a ]] && echo y', 'x=$(( 1 + 2 ))', 'declare -a arr=(1 2)', 'export P=1', 'coproc cat'),
  ),
})).s;
const noise = fc.string({ unit: fc.constantFrom(...'ab ;|&()<>{}[]$"\'`\n=\\#!*'.split('')), maxLength: 60 });

const same = async (script: string): Promise<void> => {
  const { canonical: _, ...walked } = await parseBash(script);
  assert.deepEqual(walked, await referenceParseBash(script), JSON.stringify(script));
};

test('the walk sees generated scripts of every form as the plain walk does', async () => {
  await fc.assert(fc.asyncProperty(line, same), { numRuns: 400 });
});

test('the walk sees broken bash-ish text (ERROR and MISSING nodes) as the plain walk does', async () => {
  await fc.assert(fc.asyncProperty(noise, same), { numRuns: 600 });
});

test('hand-picked edge cases agree: background, errors inside redirections, nesting past the bound', async () => {
  for (const s of ['a & b', 'a &', 'f() { x & }; f &', 'cat <> f', 'echo > ', 'echo "unterminated', 'if true; then', '((', '$(', `${'('.repeat(300)}true${')'.repeat(300)}`, '']) await same(s);
});
