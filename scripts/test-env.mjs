// The environment every test run gets (scripts/run-tests.mjs and scripts/test-node-versions.mjs).
import { spawnSync } from 'node:child_process';

/**
 * The environment tests run in. Tests make real git commits; a fresh machine has no git identity,
 * so one is given here unless the user has their own (their config or environment wins).
 */
export function testEnv() {
  const env = { ...process.env, TOOLGATE_TEST: '1' };
  // Tests choose their store themselves: a PostgreSQL URL of the user's shell must not move them all there.
  delete env.TOOLGATE_STORE_URL;
  const configured = (key) => spawnSync('git', ['config', '--get', key], { encoding: 'utf8' }).stdout.trim() !== '';
  if (!env.GIT_AUTHOR_NAME && !env.GIT_COMMITTER_NAME && !configured('user.name')) {
    env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = 'Toolgate tests';
  }
  if (!env.GIT_AUTHOR_EMAIL && !env.GIT_COMMITTER_EMAIL && !configured('user.email')) {
    env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = 'tests@toolgate.invalid';
  }
  return env;
}
