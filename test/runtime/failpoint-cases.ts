// The cases of the first failpoint matrix (fs.write, fs.patch, fs.delete, fs.rename, shell.exec,
// http.request), shared by the SQLite run (failpoints.test.ts) and the PostgreSQL one
// (failpoints-postgres.test.ts).
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Provider } from '../tools/http-request/provider.js';
import { PROVIDER_ADDRESS } from '../tools/http-request/harness.js';
import type { NamedCase, ToolCase } from './failpoint-matrix.js';

const read = (ws: string, p: string): string => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : '<absent>');
const ino = (ws: string, p: string): string => (existsSync(join(ws, p)) ? String(statSync(join(ws, p)).ino) : '-');

export const FS_CASES: readonly ToolCase[] = [
  {
    kind: 'fs',
    tool: 'fs.write',
    args: { path: 'w.txt', content: 'new\n', mode: 'create_or_replace' },
    prepare: (ws) => writeFileSync(join(ws, 'w.txt'), 'old\n'),
    image: (ws) => read(ws, 'w.txt'),
    pre: 'old\n',
    post: 'new\n',
    identity: (ws) => ino(ws, 'w.txt'),
  },
  {
    kind: 'fs',
    tool: 'fs.patch',
    args: { files: [{ path: 'a.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] }] },
    prepare: (ws) => writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n'),
    image: (ws) => read(ws, 'a.txt'),
    pre: 'one\ntwo\n',
    post: 'one\ninserted\ntwo\n',
    identity: (ws) => ino(ws, 'a.txt'),
  },
  {
    // Two files in one all-or-nothing patch: during_effect fires after the first is in place.
    kind: 'fs',
    tool: 'fs.patch',
    args: {
      files: [
        { path: 'p.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] },
        { path: 'q.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] },
      ],
    },
    prepare: (ws) => {
      writeFileSync(join(ws, 'p.txt'), 'one\ntwo\n');
      writeFileSync(join(ws, 'q.txt'), 'one\ntwo\n');
    },
    image: (ws) => `${read(ws, 'p.txt')}|${read(ws, 'q.txt')}`,
    pre: 'one\ntwo\n|one\ntwo\n',
    post: 'one\ninserted\ntwo\n|one\ninserted\ntwo\n',
    identity: (ws) => `${ino(ws, 'p.txt')}|${ino(ws, 'q.txt')}`,
    tornAtCrash: true,
  },
  {
    kind: 'fs',
    tool: 'fs.delete',
    args: { path: 'gone.txt' },
    prepare: (ws) => writeFileSync(join(ws, 'gone.txt'), 'x\n'),
    image: (ws) => read(ws, 'gone.txt'),
    pre: 'x\n',
    post: '<absent>',
    identity: (ws) => ino(ws, 'gone.txt'),
  },
  {
    kind: 'fs',
    tool: 'fs.rename',
    args: { from: 'from.txt', to: 'to.txt' },
    prepare: (ws) => writeFileSync(join(ws, 'from.txt'), 'x\n'),
    image: (ws) => `${read(ws, 'from.txt')}|${read(ws, 'to.txt')}`,
    pre: 'x\n|<absent>',
    post: '<absent>|x\n',
    identity: (ws) => `${ino(ws, 'from.txt')}|${ino(ws, 'to.txt')}`,
  },
  {
    kind: 'fs',
    tool: 'shell.exec',
    // The marker line is appended before the first output, which is where during_effect fires.
    args: { argv: ['sh', '-c', 'echo ran >> marker.txt; echo done'] },
    prepare: () => {},
    image: (ws) => read(ws, 'marker.txt'),
    pre: '<absent>',
    post: 'ran\n',
    identity: (ws) => ino(ws, 'marker.txt'),
  },
];

/**
 * http.request POST to a provider that keeps effects by Idempotency-Key and counts every write
 * (test/tools/http-request/provider.ts), a fresh one per case: one effect and one write is the
 * post-image; a second POST, even one the provider dedupes, is neither image.
 */
export async function httpCase(): Promise<ToolCase> {
  const provider = await Provider.start(PROVIDER_ADDRESS);
  const image = (): string => `effects=${provider.effects.size} writes=${provider.writes}`;
  return {
    kind: 'http',
    tool: 'http.request',
    args: { method: 'POST', url: `http://${PROVIDER_ADDRESS}:${provider.port}/items`, body: 'once' },
    prepare: () => {},
    image,
    pre: 'effects=0 writes=0',
    post: 'effects=1 writes=1',
    identity: () => [...provider.effects.values()].join(','),
    close: () => provider.close(),
  };
}

/** Named makers (the test's name); the http provider is started per case. */
export const FIRST_CASES: readonly NamedCase[] = [
  ...FS_CASES.map((c) => ({ name: c.tornAtCrash ? `${c.tool} (two files)` : c.tool, make: () => Promise.resolve(c) })),
  { name: 'http.request', make: httpCase },
];
