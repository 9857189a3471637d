// The openhands profile's str_replace_editor: the Anthropic reference's texts with openhands-aci's
// differences as shared/toolsurf/REPORT.md §6 records them — `ERROR:` first, errors about the
// path prefixed `Invalid \`path\` parameter: …`, the period after "unique", old == new refused,
// a view_range past the end shown up to the end with a NOTE, hidden entries counted under a
// directory view, its binary-file and truncation notices — through createRuntime({ profile }).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileAnswer, ProfileRunner } from '../../../src/profiles/index.js';
import type { Runtime } from '../../../src/index.js';
import { testRuntime } from '../../support/fixtures.js';

describe('openhands profile: str_replace_editor in openhands-aci\'s words', () => {
  let rt: Runtime;
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  const call = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('str_replace_editor', { security_risk: 'LOW', ...args }, { task_id: 'openhands-editor' });
  const at = (rel: string): string => join(ws, rel);
  const withoutCodeLine = (a: ProfileAnswer): string => a.text.replace(/\ntoolgate: [a-z_]+( \(receipt [^)]+\))?$/, '');

  before(async () => {
    ({ rt, done } = await testRuntime({ profile: 'openhands' }));
    ws = realpathSync(rt.workspace.root);
    p = rt.profile as ProfileRunner;
    writeFileSync(at('a.py'), 'def f():\n    return 1\n\nx = 1\nx = 1\n');
    writeFileSync(at('bin.dat'), Buffer.from([0xff, 0, 1]));
  });

  after(() => done());

  it('lists execute_bash and str_replace_editor, the Anthropic schema with security_risk required', () => {
    assert.deepEqual(p.tools.map((t) => t.name), ['execute_bash', 'str_replace_editor']);
    const schema = p.tools[1]?.inputSchema as unknown as { required: string[]; properties: Record<string, { enum?: string[] }> };
    assert.deepEqual(schema.required, ['command', 'path', 'security_risk']);
    assert.deepEqual(schema.properties['security_risk']?.enum, ['LOW', 'MEDIUM', 'HIGH']);
    assert.deepEqual(schema.properties['command']?.enum, ['view', 'create', 'str_replace', 'insert', 'undo_edit']);
  });

  it('a view is the reference\'s; a view_range past the end is shown to the end after a NOTE', async () => {
    const r = await call({ command: 'view', path: at('a.py'), view_range: [4, 50] });
    assert.deepEqual([r.isError, r.text], [false, `NOTE: We only show up to 6 since there're only 6 lines in this file.\nHere's the result of running \`cat -n\` on ${at('a.py')}:\n     4\tx = 1\n     5\tx = 1\n     6\t\n`]);
  });

  it('errors start with ERROR:, and the path ones say which parameter', async () => {
    const missing = await call({ command: 'view', path: at('nope.py') });
    assert.equal(missing.isError, true);
    assert.equal(withoutCodeLine(missing), `ERROR:\nInvalid \`path\` parameter: ${at('nope.py')}. The path ${at('nope.py')} does not exist. Please provide a valid path.`);
    assert.match(missing.text, /\ntoolgate: not_found \(receipt rcpt_\w+\)$/);
    const dir = await call({ command: 'str_replace', path: ws, old_str: 'a', new_str: 'b' });
    assert.equal(withoutCodeLine(dir), `ERROR:\nInvalid \`path\` parameter: ${ws}. The path ${ws} is a directory and only the \`view\` command can be used on directories`);
  });

  it('several occurrences end with a period; old_str equal to new_str is refused before any call', async () => {
    const many = await call({ command: 'str_replace', path: at('a.py'), old_str: 'x = 1', new_str: 'x = 2' });
    assert.equal(withoutCodeLine(many), 'ERROR:\nNo replacement was performed. Multiple occurrences of old_str `x = 1` in lines [4, 5]. Please ensure it is unique.');
    const same = await call({ command: 'str_replace', path: at('a.py'), old_str: 'return 1', new_str: 'return 1' });
    assert.equal(same.text, 'ERROR:\nInvalid `new_str` parameter: return 1. No replacement was performed. `new_str` and `old_str` must be different.\ntoolgate: no_change');
    assert.equal(same.receipt, null);
    assert.equal(readFileSync(at('a.py'), 'utf8'), 'def f():\n    return 1\n\nx = 1\nx = 1\n');
  });

  it('a binary file fails validation; a directory view counts the hidden entries left out', async () => {
    const bin = await call({ command: 'view', path: at('bin.dat') });
    assert.equal(withoutCodeLine(bin), `ERROR:\nFile validation failed for ${at('bin.dat')}: File appears to be binary and this file type cannot be read or edited by this tool.`);
    mkdirSync(at('d/.cache'), { recursive: true });
    writeFileSync(at('d/.prettierrc'), '{}\n');
    writeFileSync(at('d/m.py'), '');
    const r = await call({ command: 'view', path: at('d') });
    assert.equal(
      r.text,
      `Here's the files and directories up to 2 levels deep in ${at('d')}, excluding hidden items:\n${at('d')}\n${at('d/m.py')}\n\n2 hidden files/directories in this directory are excluded. You can use 'ls -la ${at('d')}' to see them.`,
    );
  });

  it('content over 16,000 characters is clipped with openhands-aci\'s note', async () => {
    writeFileSync(at('big.txt'), `${'y'.repeat(100)}\n`.repeat(200));
    const r = await call({ command: 'view', path: at('big.txt') });
    assert.ok(r.text.includes('<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you.'), r.text.slice(-400));
  });

  it('an edit and its undo through the receipts', async () => {
    const e = await call({ command: 'str_replace', path: at('a.py'), old_str: 'return 1', new_str: 'return 2' });
    assert.equal(e.isError, false, e.text);
    assert.match(e.text, /^The file .*a\.py has been edited\. Here's the result of running `cat -n` on a snippet of .*a\.py:\n {5}1\tdef f\(\):\n {5}2\t {4}return 2\n/);
    const u = await call({ command: 'undo_edit', path: at('a.py') });
    assert.equal(u.isError, false, u.text);
    assert.equal(readFileSync(at('a.py'), 'utf8'), 'def f():\n    return 1\n\nx = 1\nx = 1\n');
  });
});
