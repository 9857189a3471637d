// A recorded agent session: the files a workspace starts with, the tool calls an agent made, and
// the text a model read back from each. Kept as plain text so a reviewer reads a recording the way
// a model reads the session. Sections start with a line `@@@@ <kind> [arg]` (four, so a diff's hunk header is content):
//
//   @@@@ file PATH        the file's content before the session (a final newline is added)
//   @@@@ call TOOL        one line of JSON: the MCP tool name and its arguments
//   @@@@ text ok|error    the text content the model reads, after volatile parts are normalized
//   @@@@ after PATH       the file's content after the session (a final newline is added)
//
// Lines before the first section (`# …`) describe where the session comes from.

export interface RecordedCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly isError: boolean;
  readonly text: string;
}

export interface Transcript {
  readonly header: readonly string[];
  readonly files: ReadonlyMap<string, string>;
  readonly calls: readonly RecordedCall[];
  readonly after: ReadonlyMap<string, string>;
}

interface Section {
  readonly kind: string;
  readonly arg: string;
  readonly body: string[];
}

export function parseTranscript(source: string): Transcript {
  const lines = source.replace(/\n$/, '').split('\n');
  const header: string[] = [];
  const sections: Section[] = [];
  for (const line of lines) {
    const m = /^@@@@ (\S+)(?: (.*))?$/.exec(line);
    if (m) sections.push({ kind: m[1] ?? '', arg: m[2] ?? '', body: [] });
    else if (sections.length === 0) header.push(line);
    else sections[sections.length - 1]?.body.push(line);
  }
  const files = new Map<string, string>();
  const after = new Map<string, string>();
  const calls: RecordedCall[] = [];
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i] as Section;
    if (s.kind === 'file') files.set(s.arg, `${s.body.join('\n')}\n`);
    else if (s.kind === 'after') after.set(s.arg, `${s.body.join('\n')}\n`);
    else if (s.kind === 'call') {
      const answer = sections[i + 1];
      if (!answer || answer.kind !== 'text' || !['ok', 'error'].includes(answer.arg)) throw new Error(`call ${s.arg}: the next section must be "@@@@ text ok|error"`);
      calls.push({ tool: s.arg, args: JSON.parse(s.body.join('\n')) as Record<string, unknown>, isError: answer.arg === 'error', text: answer.body.join('\n') });
      i++;
    } else throw new Error(`unknown section @@@@ ${s.kind}`);
  }
  return { header, files, calls, after };
}

/** The transcript with each call's answer replaced by what was read: how a recording is refreshed. */
export function formatTranscript(t: Transcript, answers: readonly { isError: boolean; text: string }[]): string {
  const out: string[] = [...t.header];
  for (const [path, content] of t.files) out.push(`@@@@ file ${path}`, content.replace(/\n$/, ''));
  t.calls.forEach((c, i) => {
    const a = answers[i] ?? c;
    out.push(`@@@@ call ${c.tool}`, JSON.stringify(c.args), `@@@@ text ${a.isError ? 'error' : 'ok'}`, a.text);
  });
  for (const [path, content] of t.after) out.push(`@@@@ after ${path}`, content.replace(/\n$/, ''));
  return `${out.join('\n')}\n`;
}

/**
 * What changes from run to run, replaced by a placeholder: the workspace's absolute path, receipt
 * ids, digests, continuation tokens and timings. Everything else must match byte for byte.
 */
export function normalizeText(text: string, receiptId: string, workspace: string): string {
  return text
    .replace(/\n$/, '')
    .split(workspace)
    .join('<workspace>')
    .split(receiptId)
    .join('<receipt>')
    .replace(/sha256:[0-9a-f]{64}/g, 'sha256:<digest>')
    .replace(/"continuation":"[^"]+"/g, '"continuation":"<token>"')
    .replace(/\b\d+ ms\b/g, '<n> ms')
    .replace(/\bRan (\d+) tests? in \d+\.\d+s\b/g, 'Ran $1 tests in <t>s');
}
