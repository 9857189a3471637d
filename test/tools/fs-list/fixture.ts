// A real git repository holding what fs.list must show, omit or count: nested directories,
// ignored and generated ones, secret files, links inside, out of the workspace and to a secret.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import type { Receipt } from '../../../src/protocol/index.js';

export const FILES: Readonly<Record<string, string>> = {
  '.gitignore': 'build/\n*.log\n',
  'README.md': '# demo\n',
  'src/app.ts': 'export const app = 1;\n',
  'src/lib/util.ts': 'export function util() {}\n',
  'src/lib/deep/x.ts': 'x\n',
  'build/out.js': 'built\n',
  'debug.log': 'log\n',
  'node_modules/pkg/index.js': 'module.exports = 1;\n',
  '.env': 'TOKEN=hunter2\n',
  'keys/server.pem': '-----BEGIN-----\n',
};

/** Builds the tree in a fresh temp dir (plus a sibling "outside" dir); returns both. */
export function makeTree(): { root: string; outside: string; cleanup: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'fs-list-'));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'passwd'), 'root:x:0:0\n');
  for (const [p, c] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  mkdirSync(join(root, 'empty'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  symlinkSync('src/app.ts', join(root, 'app-link.ts')); // inside, to a file
  symlinkSync('lib', join(root, 'src/lib-link')); // inside, to a directory
  symlinkSync(outside, join(root, 'out-abs')); // absolute, outside
  symlinkSync('../outside/passwd', join(root, 'out-rel')); // relative, outside
  symlinkSync('.env', join(root, 'env-link')); // to a secret file
  symlinkSync('nowhere.txt', join(root, 'dangling')); // to nothing
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export interface ListHarness {
  readonly rt: Runtime;
  call(args: Record<string, unknown>, tool?: string): Promise<Receipt>;
  close(): Promise<void>;
}

export async function listHarness(root: string, read: string[] = ['**', '.']): Promise<ListHarness> {
  const state = mkdtempSync(join(tmpdir(), 'fs-list-state-'));
  const rt = await createRuntime({ workspace: root, stateDir: state, grant: { tools: ['*'], effects: ['read'], read, write: [] } });
  return {
    rt,
    call: (args, tool = 'fs.list') => rt.call({ protocol_version: 'tool-call.v1', task_id: 't1', tool, arguments: args }),
    close: async () => {
      await rt.close();
      rmSync(state, { recursive: true, force: true });
    },
  };
}
