// The exact text of each claude-code tool for typical cases and errors, through
// createRuntime({ profile: 'claude-code' }) and runtime.profile.call: the strings are the ones
// shared/toolsurf/claude-code/*.json record (output formats, exact error strings); where the
// profile says more than the original (Toolgate's typed code line, a truncation notice), the
// test names it and docs/profiles.md lists it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileAnswer, ProfileRunner } from '../../../src/profiles/index.js';
import type { Runtime } from '../../../src/index.js';
import { testRuntime } from '../../support/fixtures.js';

describe('claude-code profile: the text of each tool', () => {
  let rt: Runtime;
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  let n = 0;
  const call = (name: string, args: Record<string, unknown>): Promise<ProfileAnswer> => p.call(name, args, { task_id: `golden-${++n}` });
  const typed = (a: ProfileAnswer, code: string): string => `toolgate: ${code} (receipt ${a.receipt?.receipt_id})`;
  const at = (rel: string): string => join(ws, rel);

  before(async () => {
    ({ rt, done } = await testRuntime({ profile: 'claude-code' }));
    ws = realpathSync(rt.workspace.root);
    p = rt.profile as ProfileRunner;
    writeFileSync(at('a.py'), 'def f(x):\n    y = x + 1\n    return y\n\ndef g(x):\n    y = x + 1\n    return y\n');
    writeFileSync(at('empty.txt'), '');
    writeFileSync(at('long.txt'), `${'x'.repeat(2100)}\nshort\n`);
    writeFileSync(at('bin.dat'), Buffer.from([0, 1, 2, 255, 0, 3]));
    const many: string[] = [];
    for (let i = 1; i <= 2500; i++) many.push(`line ${i}`);
    writeFileSync(at('many.txt'), `${many.join('\n')}\n`);
    mkdirSync(at('src/lib'), { recursive: true });
    writeFileSync(at('src/b.ts'), 'export const b = 1;\n');
    writeFileSync(at('src/lib/c.ts'), 'export const c = 2; // TODO\n');
  });

  after(() => done());

  describe('Read', () => {
    it('numbers lines `cat -n` style as Claude Code does today: number, tab, line', async () => {
      const r = await call('Read', { file_path: at('a.py') });
      assert.deepEqual([r.isError, r.text], [false, '1\tdef f(x):\n2\t    y = x + 1\n3\t    return y\n4\t\n5\tdef g(x):\n6\t    y = x + 1\n7\t    return y']);
    });
    it('offset is the first line, limit the number of lines; an exact page has no notice', async () => {
      assert.equal((await call('Read', { file_path: at('a.py'), offset: 5, limit: 2 })).text, '5\tdef g(x):\n6\t    y = x + 1');
    });
    it('the default window is 2000 lines, and (beyond the original) says where to continue', async () => {
      const r = await call('Read', { file_path: at('many.txt') });
      const lines = r.text.split('\n');
      assert.equal(lines[0], '1\tline 1');
      assert.equal(lines[1999], '2000\tline 2000');
      assert.equal(lines.slice(2000).join('\n'), '\n(Showing lines 1-2000 of 2500. To read more, call Read with offset: 2001.)');
    });
    it('a line over 2000 characters is cut, with a marker', async () => {
      const r = await call('Read', { file_path: at('long.txt') });
      assert.equal(r.text, `1\t${'x'.repeat(2000)}… [line truncated: 100 more characters]\n2\tshort`);
    });
    it('the original reminders: an empty file, an offset past the end', async () => {
      assert.equal((await call('Read', { file_path: at('empty.txt') })).text, '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>');
      assert.equal(
        (await call('Read', { file_path: at('a.py'), offset: 20 })).text,
        '<system-reminder>Warning: the file exists but is shorter than the provided offset (20). The file has 7 lines.</system-reminder>',
      );
    });
    it('the original errors: missing file, directory, binary — then the typed code', async () => {
      const missing = await call('Read', { file_path: at('nope.py') });
      assert.equal(missing.text, `<tool_use_error>File does not exist.</tool_use_error>\n${typed(missing, 'not_found')}`);
      const dir = await call('Read', { file_path: at('src') });
      assert.equal(dir.text, `<tool_use_error>EISDIR: illegal operation on a directory, read</tool_use_error>\n${typed(dir, 'invalid_resource')}`);
      const bin = await call('Read', { file_path: at('bin.dat') });
      assert.equal(
        bin.text,
        `<tool_use_error>This tool cannot read binary files. The file appears to be a binary .dat file. Please use appropriate tools for binary file analysis.</tool_use_error>\n${typed(bin, 'unsupported')}`,
      );
    });
    it('a path outside the workspace is refused by the runtime (path_escape, with a receipt)', async () => {
      const r = await call('Read', { file_path: '/etc/passwd' });
      assert.equal(r.isError, true);
      assert.equal(r.receipt?.status, 'denied');
      assert.equal(r.text, `<tool_use_error>Path /etc/passwd is outside the workspace ${ws}; only files beneath it can be reached.</tool_use_error>\n${typed(r, 'path_escape')}`);
    });
    it('the text is made from the redacted receipt: a token in the file never reaches the model', async () => {
      const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
      writeFileSync(at('conf.env'), `TOKEN=${token}\nname=x\n`);
      const r = await call('Read', { file_path: at('conf.env') });
      assert.equal(r.isError, false);
      assert.equal(r.text.includes(token), false, r.text);
      assert.match(r.text, /^1\tTOKEN=.*\n2\tname=x$/);
    });
    it('arguments outside the original schema: InputValidationError, then invalid_arguments; nothing is called', async () => {
      const r = await call('Read', { file_path: at('a.py'), offset: -1, bogus: true });
      assert.equal(r.receipt, null);
      assert.match(r.text, /^<tool_use_error>InputValidationError: Read failed due to the following issues:\nThe parameter `offset`: .*\nThe parameter `bogus`: unknown field<\/tool_use_error>\ntoolgate: invalid_arguments$/);
    });
  });

  describe('Edit', () => {
    it('the uniqueness error in the original words, nothing written', async () => {
      const r = await call('Edit', { file_path: at('a.py'), old_string: '    y = x + 1', new_string: '    y = x + 2' });
      assert.equal(
        r.text,
        '<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString:     y = x + 1</tool_use_error>\n' +
          typed(r, 'ambiguous_match'),
      );
      assert.equal(readFileSync(at('a.py'), 'utf8').includes('x + 2'), false);
    });
    it('no match, and old == new', async () => {
      const miss = await call('Edit', { file_path: at('a.py'), old_string: 'zzz', new_string: 'q' });
      assert.equal(miss.text, `<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>\n${typed(miss, 'no_match')}`);
      const same = await call('Edit', { file_path: at('a.py'), old_string: 'def f', new_string: 'def f' });
      assert.equal(same.text, `<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>\n${typed(same, 'no_change')}`);
    });
    it('a missing file; an empty old_string on an existing file', async () => {
      const missing = await call('Edit', { file_path: at('nope.py'), old_string: 'a', new_string: 'b' });
      assert.equal(missing.text, `<tool_use_error>File does not exist.</tool_use_error>\n${typed(missing, 'not_found')}`);
      const exists = await call('Edit', { file_path: at('a.py'), old_string: '', new_string: 'x' });
      assert.equal(exists.text, `<tool_use_error>Cannot create new file - file already exists.</tool_use_error>\n${typed(exists, 'already_exists')}`);
    });
    it('success, and replace_all', async () => {
      writeFileSync(at('e.py'), 'a = 1\nb = 1\n');
      assert.equal((await call('Edit', { file_path: at('e.py'), old_string: 'a = 1', new_string: 'a = 2' })).text, `The file ${at('e.py')} has been updated successfully.`);
      assert.equal(
        (await call('Edit', { file_path: at('e.py'), old_string: '= ', new_string: ':= ', replace_all: true })).text,
        `The file ${at('e.py')} has been updated. All occurrences of '= ' were successfully replaced with ':= '.`,
      );
      assert.equal(readFileSync(at('e.py'), 'utf8'), 'a := 2\nb := 1\n');
    });
    it('an empty old_string on a missing file creates it', async () => {
      assert.equal((await call('Edit', { file_path: at('made/new.py'), old_string: '', new_string: 'x = 1\n' })).text, `The file ${at('made/new.py')} has been updated successfully.`);
      assert.equal(readFileSync(at('made/new.py'), 'utf8'), 'x = 1\n');
    });
  });

  describe('MultiEdit', () => {
    it('all edits in one fs.patch, all or nothing: a failing second edit leaves the file as it was', async () => {
      writeFileSync(at('m.py'), 'one\ntwo\nthree\n');
      const r = await call('MultiEdit', { file_path: at('m.py'), edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'four', new_string: '4' }] });
      assert.equal(r.receipt?.tool, 'fs.patch');
      assert.equal(r.text, `<tool_use_error>String to replace not found in file.\nString: four</tool_use_error>\n${typed(r, 'no_match')}`);
      assert.equal(readFileSync(at('m.py'), 'utf8'), 'one\ntwo\nthree\n');
      const good = await call('MultiEdit', { file_path: at('m.py'), edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'three', new_string: '3' }] });
      assert.equal(good.text, `Applied 2 edits to ${at('m.py')}.`);
      assert.equal(readFileSync(at('m.py'), 'utf8'), '1\ntwo\n3\n');
    });
  });

  describe('MultiEdit: where Toolgate differs', () => {
    it('an edit on text an earlier edit wrote is refused (edits are placed in the file as read), nothing written', async () => {
      writeFileSync(at('m2.py'), 'one\ntwo\n');
      const r = await call('MultiEdit', { file_path: at('m2.py'), edits: [{ old_string: 'one', new_string: 'uno' }, { old_string: 'uno', new_string: 'eins' }] });
      assert.equal(r.text, `<tool_use_error>String to replace not found in file.\nString: uno</tool_use_error>\n${typed(r, 'no_match')}`);
      assert.equal(readFileSync(at('m2.py'), 'utf8'), 'one\ntwo\n');
    });
    it('overlapping edits and an empty old_string are refused with a receipt', async () => {
      writeFileSync(at('m3.py'), 'one\ntwo\n');
      const overlap = await call('MultiEdit', { file_path: at('m3.py'), edits: [{ old_string: 'one\ntwo', new_string: 'x' }, { old_string: 'two', new_string: 'y' }] });
      assert.equal(overlap.code, 'overlapping_edits');
      assert.match(overlap.text, /^<tool_use_error>edits 1 and 2 of m3\.py touch the same text .*<\/tool_use_error>\ntoolgate: overlapping_edits \(receipt rcpt_\w+\)$/);
      const empty = await call('MultiEdit', { file_path: at('m3.py'), edits: [{ old_string: '', new_string: 'x' }] });
      assert.equal(empty.text, `<tool_use_error>old_string is empty: MultiEdit does not create files here; use Write to create the file.</tool_use_error>\n${typed(empty, 'invalid_arguments')}`);
      assert.equal(readFileSync(at('m3.py'), 'utf8'), 'one\ntwo\n');
    });
  });

  describe('Write', () => {
    it('creates a new file (and its parents); refuses an unread existing file; replaces a read one; refuses a change since the read', async () => {
      const created = await call('Write', { file_path: at('w/new.txt'), content: 'new\n' });
      assert.equal(created.text, `File created successfully at: ${at('w/new.txt')}`);
      writeFileSync(at('w/old.txt'), 'old\n');
      const task = { task_id: 'write-task' };
      const unread = await p.call('Write', { file_path: at('w/old.txt'), content: 'x\n' }, task);
      assert.equal(unread.text, `<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>\n${typed(unread, 'already_exists')}`);
      await p.call('Read', { file_path: at('w/old.txt') }, task);
      const replaced = await p.call('Write', { file_path: at('w/old.txt'), content: 'x\n' }, task);
      assert.equal(replaced.text, `The file ${at('w/old.txt')} has been updated successfully.`);
      writeFileSync(at('w/old.txt'), 'changed by someone else\n');
      const stale = await p.call('Write', { file_path: at('w/old.txt'), content: 'y\n' }, task);
      assert.equal(
        stale.text,
        `<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>\n${typed(stale, 'precondition_failed')}`,
      );
      assert.equal(readFileSync(at('w/old.txt'), 'utf8'), 'changed by someone else\n');
    });
  });

  describe('Grep, Glob, LS', () => {
    it('Grep files_with_matches (default), content with -n and context, count, head_limit', async () => {
      assert.equal((await call('Grep', { pattern: 'export const' })).text, `Found 2 files\n${at('src/b.ts')}\n${at('src/lib/c.ts')}`);
      assert.equal((await call('Grep', { pattern: 'TODO', output_mode: 'content', path: at('src') })).text, `${at('src/lib/c.ts')}:1:export const c = 2; // TODO`);
      assert.equal((await call('Grep', { pattern: 'todo', '-i': true, output_mode: 'content', '-n': false })).text, `${at('src/lib/c.ts')}:export const c = 2; // TODO`);
      assert.equal(
        (await call('Grep', { pattern: 'return', output_mode: 'content', path: at('a.py'), '-B': 1 })).text,
        `${at('a.py')}-2-    y = x + 1\n${at('a.py')}:3:    return y\n--\n${at('a.py')}-6-    y = x + 1\n${at('a.py')}:7:    return y`,
      );
      assert.equal((await call('Grep', { pattern: 'y', output_mode: 'count', glob: '*.py' })).text.startsWith(`${at('a.py')}:4\n`), true);
      assert.equal((await call('Grep', { pattern: 'export', head_limit: 1 })).text, `Found 1 file\n${at('src/b.ts')}\n\n[Showing results with pagination = limit: 1, offset: 0]`);
      assert.equal((await call('Grep', { pattern: 'nothing-here-at-all' })).text, 'No files found');
      assert.equal((await call('Grep', { pattern: 'nothing-here-at-all', output_mode: 'content' })).text, 'No matches found');
      assert.equal((await call('Grep', { pattern: 'const', type: 'ts', path: at('src/lib') })).text, `Found 1 file\n${at('src/lib/c.ts')}`);
    });
    it('Grep refuses what it cannot map (-o), with the typed code and no call', async () => {
      const r = await call('Grep', { pattern: 'a.b', '-o': true });
      assert.equal(r.receipt, null);
      assert.match(r.text, /^<tool_use_error>-o \(only the matched parts\) is not supported.*<\/tool_use_error>\ntoolgate: unsupported$/);
    });
    it('Grep multiline: a pattern across lines, `.` matching the newline (rg -U --multiline-dotall)', async () => {
      assert.equal((await call('Grep', { pattern: 'def f\\(x\\):\\n\\s+y = x', multiline: true })).text, `Found 1 file\n${at('a.py')}`);
      assert.equal((await call('Grep', { pattern: 'def g.*return y', multiline: true, output_mode: 'count' })).text, `${at('a.py')}:1\n\nFound 1 total occurrence across 1 file.`);
      const without = await call('Grep', { pattern: 'def g.*return y', output_mode: 'count' });
      assert.equal(without.text, 'No matches found');
    });
    it('Glob: a glob relative to path, absolute paths, newest first; No files found', async () => {
      utimesSync(at('src/b.ts'), 1000, 1000);
      utimesSync(at('src/lib/c.ts'), 2000, 2000);
      assert.equal((await call('Glob', { pattern: '**/*.ts' })).text, `${at('src/lib/c.ts')}\n${at('src/b.ts')}`);
      utimesSync(at('src/b.ts'), 3000, 3000);
      assert.equal((await call('Glob', { pattern: '**/*.ts' })).text, `${at('src/b.ts')}\n${at('src/lib/c.ts')}`);
      assert.equal((await call('Glob', { pattern: '*.ts', path: at('src') })).text, at('src/b.ts'));
      assert.equal((await call('Glob', { pattern: '*.ts' })).text, 'No files found');
    });
    it('Glob past 100 files: the original truncation notice', async () => {
      mkdirSync(at('many'));
      for (let i = 0; i < 105; i++) {
        writeFileSync(at(`many/f${String(i).padStart(3, '0')}.txt`), 'x');
        utimesSync(at(`many/f${String(i).padStart(3, '0')}.txt`), 10_000 + i, 10_000 + i);
      }
      const lines = (await call('Glob', { pattern: 'many/*.txt' })).text.split('\n');
      assert.equal(lines.length, 101);
      assert.equal(lines[0], at('many/f104.txt'), 'the newest first');
      assert.equal(lines[99], at('many/f005.txt'));
      assert.equal(lines[100], '(Results are truncated. Consider using a more specific path or pattern.)');
    });
    it('Grep with an invalid regex: the engine\'s message, invalid_arguments', async () => {
      const r = await call('Grep', { pattern: '(' });
      assert.match(r.text, /^<tool_use_error>invalid regex: [^]*unclosed group<\/tool_use_error>\ntoolgate: invalid_arguments \(receipt rcpt_\w+\)$/);
    });
    it('unknown tool and unknown field: no call, the typed code', async () => {
      assert.equal((await call('Nope', {})).text, '<tool_use_error>No such tool available: Nope</tool_use_error>\ntoolgate: unknown_tool');
      assert.equal(
        (await call('Edit', { file_path: at('a.py'), old_string: 'a', new_string: 'b', bogus: 1 })).text,
        '<tool_use_error>InputValidationError: Edit failed due to the following issue:\nThe parameter `bogus`: unknown field</tool_use_error>\ntoolgate: invalid_arguments',
      );
    });
    it('LS on a file and on a missing directory', async () => {
      const file = await call('LS', { path: at('a.py') });
      assert.equal(file.text, `<tool_use_error>${at('a.py')} is not a directory.</tool_use_error>\n${typed(file, 'invalid_resource')}`);
      const missing = await call('LS', { path: at('nope') });
      assert.equal(missing.text, `<tool_use_error>Directory ${at('nope')} does not exist.</tool_use_error>\n${typed(missing, 'not_found')}`);
    });
    it('LS: an indented tree; ignore leaves entries out', async () => {
      const r = await call('LS', { path: at('src'), ignore: ['lib'] });
      assert.equal(r.text, `- ${at('src')}/\n  - b.ts`);
    });
  });
});
