// A runtime whose grant names the test servers' loopback addresses (hosts and
// private_addresses), refs `main` and `feature/*`, a policy that lets Host and Ref resources
// through without approval, and a workspace that is a git repository with three commits.
import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../../src/runtime/index.js';
import type { GitConnectorConfig } from '../../../src/tools/index.js';
import { tempDirs } from '../../support/fixtures.js';

export const DAEMON_ADDRESS = '127.0.0.2';
export const HTTP_ADDRESS = '127.0.0.3';
/** Where a rebinding name points the second time; a server there counts what reaches it. */
export const REBIND_ADDRESS = '127.0.0.4';
export const TOKEN_ENV = 'TG_GIT_TEST_TOKEN';
export const TOKEN = 'ghp_4f9c2e7a1b8d3f6e0a5c9b2d7e4f1a8c0b3d5e7f';

export const POLICY = [
  'permit (principal, action, resource is Toolgate::Host);',
  'permit (principal, action, resource is Toolgate::Ref);',
  'permit (principal, action, resource is Toolgate::Tool);',
].join('\n');

export function grant(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tools: ['*'],
    effects: ['read', 'network', 'publish'],
    hosts: [DAEMON_ADDRESS, HTTP_ADDRESS, 'git.test', 'rebind.test', 'meta.test', 'private.test'],
    private_addresses: [DAEMON_ADDRESS, HTTP_ADDRESS],
    refs: ['refs/heads/main', 'refs/heads/feature/*'],
    ...extra,
  };
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=dev@toolgate.invalid', '-c', 'user.name=Toolgate dev', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** A repository with commits c1 ← c2 ← c3 (HEAD); returns their ids. */
export function initWorkspace(dir: string): { c1: string; c2: string; c3: string } {
  git(dir, 'init', '-q', '-b', 'main');
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    git(dir, 'commit', '-q', '--allow-empty', '-m', `c${n}`);
    ids.push(git(dir, 'rev-parse', 'HEAD'));
  }
  return { c1: ids[0] as string, c2: ids[1] as string, c3: ids[2] as string };
}

export interface GitRuntime {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly state: string;
  readonly commits: { c1: string; c2: string; c3: string };
  done(): Promise<void>;
}

export async function gitRuntime(o: { config?: GitConnectorConfig; grant?: Record<string, unknown>; extra?: Partial<RuntimeOptions> } = {}, dirs = tempDirs('tg-git')): Promise<GitRuntime> {
  process.env[TOKEN_ENV] = TOKEN;
  const commits = initWorkspace(dirs.workspace);
  const rt = await createRuntime({
    workspace: dirs.workspace,
    stateDir: dirs.state,
    grant: (o.grant ?? grant()) as never,
    policies: [{ name: 'git.cedar', text: POLICY }],
    ...(o.config ? { connectors: { git: o.config } } : {}),
    ...o.extra,
  });
  return {
    rt,
    workspace: dirs.workspace,
    state: dirs.state,
    commits,
    done: async () => {
      await rt.close();
      dirs.cleanup();
    },
  };
}

/**
 * git processes a finished call left behind: their working directory is a scratch repository
 * (`tg-git-remote-*`) that the call removed after its children ended, so any such process whose
 * cwd reads "(deleted)" outlived its call.
 */
export function orphanedGitProcesses(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd.includes('tg-git-remote-') && cwd.endsWith(' (deleted)')) out.push(Number(entry));
    } catch {
      // gone, or not readable
    }
  }
  return out;
}
