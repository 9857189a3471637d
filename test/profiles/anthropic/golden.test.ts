// The anthropic profile's editor against the reference implementation's own outputs:
// shared/toolsurf/golden_anthropic_reference_editor.txt was captured by running Anthropic's
// EditTool20250429 on a temp dir. The same calls through createRuntime({ profile: 'anthropic' })
// give the same text byte for byte, the workspace path written as the golden writes its temp dir
// (`tmp/DIR`). The cases where Toolgate answers differently on purpose (a relative path is
// accepted; a binary file's decode error) are tested for what they say instead, and listed in
// docs/profiles.md. The transcript is copied beside this test (a clean clone has no ../shared);
// when ../shared is there, the copy must still equal it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileAnswer, ProfileRunner } from '../../../src/profiles/index.js';
import type { Runtime } from '../../../src/index.js';
import { testRuntime } from '../../support/fixtures.js';

const GOLDEN_FILE = join(import.meta.dirname, 'golden_anthropic_reference_editor.txt');
const FACTS_FILE = join(import.meta.dirname, '../../../../shared/toolsurf/golden_anthropic_reference_editor.txt');

/** `### name [ToolError]` sections of the golden transcript: name → { text, error }. */
function goldenSections(source: string): Map<string, { text: string; error: boolean }> {
  const out = new Map<string, { text: string; error: boolean }>();
  const parts = source.split(/^### /m).slice(1);
  for (const part of parts) {
    const nl = part.indexOf('\n');
    const head = part.slice(0, nl);
    const error = head.endsWith(' [ToolError]');
    const name = error ? head.slice(0, -' [ToolError]'.length) : head;
    // The writer printed each output and then a newline.
    out.set(name, { text: part.slice(nl + 1).replace(/\n$/, ''), error });
  }
  return out;
}

describe('anthropic profile: the reference editor\'s golden transcript', () => {
  let rt: Runtime;
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  const task = { task_id: 'golden-anthropic' };
  const golden = goldenSections(readFileSync(GOLDEN_FILE, 'utf8'));
  const call = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('str_replace_based_edit_tool', args, task);
  const at = (rel: string): string => join(ws, rel);
  /** The answer as the golden writes it: the temp dir as tmp/DIR, without Toolgate's typed-code line. */
  const asGolden = (a: ProfileAnswer): { text: string; error: boolean } => ({
    text: a.text.split(ws).join('tmp/DIR').replace(/\ntoolgate: [a-z_]+( \(receipt [^)]+\))?$/, ''),
    error: a.isError,
  });
  const expectGolden = (name: string, a: ProfileAnswer): void => {
    const want = golden.get(name);
    assert.ok(want, `the golden has a section "${name}"`);
    assert.deepEqual(asGolden(a), want, name);
  };

  before(async () => {
    ({ rt, done } = await testRuntime({ profile: 'anthropic' }));
    ws = realpathSync(rt.workspace.root);
    p = rt.profile as ProfileRunner;
    writeFileSync(at('a.py'), 'def f():\n        return 1\n\nx = 1\nx = 1\n');
    writeFileSync(at('bin.dat'), Buffer.from([0xff, 0, 1]));
  });

  after(() => done());

  it('the golden transcript has its 14 sections, and is the facts\' copy where ../shared is beside the repository', () => {
    assert.equal(golden.size, 14);
    if (existsSync(FACTS_FILE)) assert.equal(readFileSync(GOLDEN_FILE, 'utf8'), readFileSync(FACTS_FILE, 'utf8'));
  });

  it('view file, view range and a range past the end', async () => {
    const file = await call({ command: 'view', path: at('a.py') });
    expectGolden('view file', file);
    assert.equal(file.text, `Here's the result of running \`cat -n\` on ${at('a.py')}:\n     1\tdef f():\n     2\t        return 1\n     3\t\n     4\tx = 1\n     5\tx = 1\n     6\t\n`);
    expectGolden('view range', await call({ command: 'view', path: at('a.py'), view_range: [2, -1] }));
    const bad = await call({ command: 'view', path: at('a.py'), view_range: [1, 99] });
    expectGolden('view range bad end', bad);
    assert.match(bad.text, /\ntoolgate: invalid_arguments \(receipt rcpt_\w+\)$/);
  });

  it('str_replace: not found, several, then one — with the snippet of the file as it now is', async () => {
    expectGolden('str_replace not found', await call({ command: 'str_replace', path: at('a.py'), old_str: 'nope', new_str: 'x' }));
    const many = await call({ command: 'str_replace', path: at('a.py'), old_str: 'x = 1', new_str: 'x = 2' });
    expectGolden('str_replace multiple', many);
    assert.match(many.text, /\ntoolgate: ambiguous_match \(receipt rcpt_\w+\)$/);
    const one = await call({ command: 'str_replace', path: at('a.py'), old_str: 'return 1', new_str: 'return 2' });
    expectGolden('str_replace ok', one);
    assert.equal(one.isError, false);
  });

  it('insert at line 0, then a line past the end', async () => {
    expectGolden('insert ok', await call({ command: 'insert', path: at('a.py'), insert_line: 0, insert_text: '# header' }));
    expectGolden('insert bad', await call({ command: 'insert', path: at('a.py'), insert_line: 99, insert_text: 'x' }));
  });

  it('create over a file, create under a missing directory, an edit of a directory', async () => {
    expectGolden('create exists', await call({ command: 'create', path: at('a.py'), file_text: 'x' }));
    expectGolden('create missing parent', await call({ command: 'create', path: at('no/such/b.py'), file_text: 'x' }));
    expectGolden('dir non-view', await call({ command: 'str_replace', path: ws, old_str: 'a', new_str: 'b' }));
  });

  it('the file after the edits is the reference\'s', () => {
    const actual = readFileSync(at('a.py'), 'utf8');
    assert.equal(`'${actual.replace(/\n/g, '\\n')}'`, golden.get('file after edits (repr)')?.text);
    assert.equal(actual, '# header\ndef f():\n        return 2\n\nx = 1\nx = 1\n');
  });

  it('differs on purpose: a relative path is the workspace\'s (the API docs use them), a binary file is named as such', async () => {
    const rel = await call({ command: 'view', path: 'a.py', view_range: [1, 1] });
    assert.deepEqual([rel.isError, rel.text], [false, "Here's the result of running `cat -n` on a.py:\n     1\t# header\n"]);
    const bin = await call({ command: 'view', path: at('bin.dat') });
    assert.equal(bin.isError, true);
    assert.match(bin.text, /^Ran into UnicodeDecodeError: 'utf-8' codec can't decode .*bin\.dat \(a binary file of 3 bytes\) while trying to read .*bin\.dat\ntoolgate: unsupported/);
  });

  it('views a directory two levels deep without hidden entries, as find -maxdepth 2 does', async () => {
    mkdirSync(at('pkg/sub/deep'), { recursive: true });
    mkdirSync(at('.hidden'));
    writeFileSync(at('pkg/sub/deep/x.py'), '');
    writeFileSync(at('pkg/m.py'), '');
    writeFileSync(at('.hidden/h'), '');
    const r = await call({ command: 'view', path: at('pkg') });
    assert.equal(r.text, `Here's the files and directories up to 2 levels deep in ${at('pkg')}, excluding hidden items:\n${at('pkg')}\n${at('pkg/m.py')}\n${at('pkg/sub')}\n${at('pkg/sub/deep')}\n`);
    const top = await call({ command: 'view', path: ws });
    assert.ok(!top.text.includes('.hidden'), top.text);
    assert.ok(top.text.includes(`${at('pkg/sub')}\n`), top.text);
    assert.ok(!top.text.includes(at('pkg/sub/deep')), 'two levels, not three');
  });

  it('str_replace_editor undoes the task\'s edits of a file one by one, then says there is no history', async () => {
    const ed = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('str_replace_editor', args, { task_id: 'undo-task' });
    writeFileSync(at('u.txt'), 'one\ntwo\n');
    await ed({ command: 'str_replace', path: at('u.txt'), old_str: 'one', new_str: 'ONE' });
    await ed({ command: 'str_replace', path: at('u.txt'), old_str: 'two', new_str: 'TWO' });
    assert.equal(readFileSync(at('u.txt'), 'utf8'), 'ONE\nTWO\n');
    const first = await ed({ command: 'undo_edit', path: at('u.txt') });
    assert.deepEqual([first.isError, first.text], [false, `Last edit to ${at('u.txt')} undone successfully. Here's the result of running \`cat -n\` on ${at('u.txt')}:\n     1\tONE\n     2\ttwo\n     3\t\n`]);
    await ed({ command: 'undo_edit', path: at('u.txt') });
    assert.equal(readFileSync(at('u.txt'), 'utf8'), 'one\ntwo\n');
    const none = await ed({ command: 'undo_edit', path: at('u.txt') });
    assert.equal(none.isError, true);
    assert.equal(none.text, `No edit history found for ${at('u.txt')}.\ntoolgate: not_found`);
    const current = await call({ command: 'undo_edit', path: at('u.txt') });
    assert.match(current.text, /^Invalid parameters for str_replace_based_edit_tool/, 'the current tool has no undo_edit');
  });

  it('insert is bound to the file as the task last saw it: without a view it asks for one; after a change by someone else it is refused', async () => {
    const t = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('str_replace_based_edit_tool', args, { task_id: 'insert-task' });
    writeFileSync(at('i.txt'), 'a\nb\n');
    const blind = await t({ command: 'insert', path: at('i.txt'), insert_line: 1, insert_text: 'x' });
    assert.equal(blind.isError, true);
    assert.match(blind.text, /view .*i\.txt first[^\n]*\ntoolgate: precondition_failed$/);
    await t({ command: 'view', path: at('i.txt') });
    writeFileSync(at('i.txt'), 'z\na\nb\n');
    const stale = await t({ command: 'insert', path: at('i.txt'), insert_line: 1, insert_text: 'x' });
    assert.equal(stale.isError, true);
    assert.match(stale.text, /changed since you last viewed it[^\n]*\ntoolgate: precondition_failed \(receipt rcpt_\w+\)$/);
    assert.equal(readFileSync(at('i.txt'), 'utf8'), 'z\na\nb\n');
    await t({ command: 'view', path: at('i.txt') });
    const fresh = await t({ command: 'insert', path: at('i.txt'), insert_line: 3, insert_text: 'end' });
    assert.equal(fresh.isError, false, fresh.text);
    assert.equal(readFileSync(at('i.txt'), 'utf8'), 'z\na\nb\nend\n');
  });

  it('every call is a receipt that names the profile, the original tool and the digest of its arguments', async () => {
    const args = { command: 'view', path: at('a.py'), view_range: [1, 2] };
    const r = await call(args);
    const origin = (r.receipt as unknown as { origin?: Record<string, unknown> }).origin;
    assert.equal(origin?.['profile'], 'anthropic');
    assert.equal(origin?.['tool'], 'str_replace_based_edit_tool');
    assert.match(String(origin?.['arguments_digest']), /^sha256:[0-9a-f]{64}$/);
    assert.equal(r.receipt?.tool, 'fs.read');
  });
});
