// Issue 21's fault matrix, the rest of the tools (fs.write … http.request are in failpoints.test.ts,
// the task tools in failpoints-tasks.test.ts): shell.session, git.push and git.fetch against a real
// bare repository behind git daemon, fs.undo of a real fs.write receipt, an upstream MCP server's
// send (the fixture in test/upstream, under bubblewrap), and the read tools. Each through every
// failpoint, judged by failpoint-matrix.ts; the table below says which failpoints a tool passes
// (a read never marks anything sent), and the child must be killed at exactly those.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';
import type { Failpoint } from '../../src/protocol/index.js';
import { envelope } from '../support/fixtures.js';
import { GitDaemonServer } from '../tools/git-remote/git-server.js';
import { DAEMON_ADDRESS, git, initWorkspace } from '../tools/git-remote/harness.js';
import { matrixTests, TASK, type NamedCase, type ToolCase } from './failpoint-matrix.js';
import { failpointRuntimeOptions } from './failpoint-options.js';

const read = (ws: string, p: string): string => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : '<absent>');
const ino = (ws: string, p: string): string => (existsSync(join(ws, p)) ? String(statSync(join(ws, p)).ino) : '-');
const lines = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

/** A read: no markSent (so neither after_intent nor after_sent) and no effect to be in the middle of. */
const READ_PASSES: readonly Failpoint[] = ['after_claim', 'before_receipt', 'during_commit'];

let daemon: Promise<GitDaemonServer> | null = null;
const gitDaemon = (): Promise<GitDaemonServer> => (daemon ??= GitDaemonServer.start(DAEMON_ADDRESS));
after(async () => {
  if (daemon) await (await daemon).close();
});
let repos = 0;

const CASES: readonly NamedCase[] = [
  {
    name: 'shell.session',
    // The marker line is appended before the first output, which is where during_effect fires.
    make: async () => ({
      kind: 'fs',
      tool: 'shell.session',
      args: { command: 'echo ran >> marker.txt; echo done' },
      prepare: () => {},
      image: (ws) => read(ws, 'marker.txt'),
      pre: '<absent>',
      post: 'ran\n',
      identity: (ws) => ino(ws, 'marker.txt'),
    }),
  },
  {
    name: 'git.push',
    // The remote is a bare repository served by git daemon; its reflog counts every move of main.
    make: async () => {
      const server = await gitDaemon();
      const name = `fp${++repos}`;
      let url = '';
      const image = (): string => `moves=${server.refMoves(name, 'refs/heads/main')} main=${server.refOf(name, 'refs/heads/main') ?? 'absent'}`;
      let post = '';
      return {
        kind: 'git',
        tool: 'git.push',
        args: {},
        prepare: (ws) => {
          const { c3 } = initWorkspace(ws);
          server.createRepository(name);
          url = `git://${DAEMON_ADDRESS}:${server.port}/${name}.git`;
          post = `moves=1 main=${c3}`;
          return { args: { remote: url, ref: 'main' } };
        },
        image,
        pre: 'moves=0 main=absent',
        get post() {
          return post;
        },
        identity: image,
      };
    },
  },
  {
    name: 'git.fetch',
    // The remote holds main at a commit the workspace does not have; the effect is refs/remotes/fp/main.
    make: async () => {
      const server = await gitDaemon();
      const name = `fp${++repos}`;
      let oid = '';
      const tracking = (ws: string): string => {
        try {
          return git(ws, 'rev-parse', '--verify', '--quiet', 'refs/remotes/fp/main');
        } catch {
          return 'absent';
        }
      };
      return {
        kind: 'git',
        tool: 'git.fetch',
        args: {},
        passes: ['after_claim', 'during_effect', 'before_receipt', 'during_commit'],
        repeatable: true,
        prepare: (ws, dirs) => {
          initWorkspace(ws);
          const bare = server.createRepository(name);
          const src = join(dirs.base, 'src');
          mkdirSync(src);
          initWorkspace(src);
          git(src, 'commit', '-q', '--allow-empty', '-m', 'remote only');
          oid = git(src, 'rev-parse', 'HEAD');
          git(src, 'push', '-q', bare, 'main');
          return { args: { remote: `git://${DAEMON_ADDRESS}:${server.port}/${name}.git`, refs: ['refs/heads/main'], name: 'fp' } };
        },
        image: (ws) => (tracking(ws) === 'absent' ? 'absent' : tracking(ws) === oid ? 'fetched' : tracking(ws)),
        pre: 'absent',
        post: 'fetched',
        identity: tracking,
      };
    },
  },
  {
    name: 'fs.undo',
    // Undoes an fs.write made (and committed) in the same state before the crash.
    make: async () => ({
      kind: 'fs',
      tool: 'fs.undo',
      args: {},
      prepare: async (ws, dirs) => {
        writeFileSync(join(ws, 'u.txt'), 'old\n');
        const rt = await createRuntime({ workspace: ws, stateDir: dirs.state, ...failpointRuntimeOptions('fs') });
        try {
          const w = await rt.call(envelope('fs.write', { path: 'u.txt', content: 'new\n', mode: 'create_or_replace' }, { task_id: TASK }));
          assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
          return { args: { receipt_id: w.receipt_id } };
        } finally {
          await rt.close();
        }
      },
      image: (ws) => read(ws, 'u.txt'),
      pre: 'new\n',
      post: 'old\n',
      identity: (ws) => ino(ws, 'u.txt'),
    }),
  },
  {
    name: 'upstream send (issues.create_issue)',
    // The fixture dedupes by the key Toolgate derives; calls.jsonl counts every send regardless.
    make: async () => {
      let data = '';
      const image = (): string => `effects=${lines(join(data, 'effects.jsonl'))} calls=${lines(join(data, 'calls.jsonl'))}`;
      return {
        kind: 'upstream',
        tool: 'issues.create_issue',
        args: { repo: 'acme/app', title: 'once' },
        prepare: (_ws, dirs) => {
          data = join(dirs.base, 'data');
          mkdirSync(data);
          return { upstreamData: data };
        },
        image,
        pre: 'effects=0 calls=0',
        post: 'effects=1 calls=1',
        identity: () => (existsSync(join(data, 'effects.jsonl')) ? readFileSync(join(data, 'effects.jsonl'), 'utf8') : '-'),
      };
    },
  },
  ...(['fs.read', 'fs.list', 'fs.search'] as const).map((tool) => ({
    name: tool,
    make: async (): Promise<ToolCase> => ({
      kind: 'fs',
      tool,
      args: tool === 'fs.read' ? { path: 'r.txt' } : tool === 'fs.list' ? { path: '.' } : { query: 'needle' },
      passes: READ_PASSES,
      prepare: (ws) => writeFileSync(join(ws, 'r.txt'), 'a needle\n'),
      image: (ws) => read(ws, 'r.txt'),
      pre: 'a needle\n',
      post: 'a needle\n',
      identity: (ws) => ino(ws, 'r.txt'),
    }),
  })),
];

matrixTests('failpoint matrix: shell.session, git, fs.undo, upstream, reads', CASES);
