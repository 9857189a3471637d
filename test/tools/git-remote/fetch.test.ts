// git.fetch through the real daemon: granted refs land in refs/remotes/<name>/ with their
// objects in the workspace repository; a ref outside the grant is denied with nothing fetched.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { GitDaemonServer } from './git-server.js';
import { DAEMON_ADDRESS, git, gitRuntime, type GitRuntime } from './harness.js';

describe('git.fetch over git://', () => {
  let server: GitDaemonServer;
  let h: GitRuntime;
  let upstream: string;

  before(async () => {
    server = await GitDaemonServer.start(DAEMON_ADDRESS);
    h = await gitRuntime({ config: { remotes: [{ name: 'origin', url: `git://${DAEMON_ADDRESS}:${server.port}/up.git` }] } });
    const dir = server.createRepository('up');
    // Commits the workspace does not have: a separate history made in the bare repository.
    const tree = git(dir, 'hash-object', '-t', 'tree', '-w', '/dev/null');
    upstream = git(dir, 'commit-tree', tree, '-m', 'upstream');
    git(dir, 'update-ref', 'refs/heads/main', upstream);
    git(dir, 'update-ref', 'refs/heads/feature/a', upstream);
    git(dir, 'update-ref', 'refs/heads/secret', upstream);
  });
  after(async () => {
    await h.done();
    await server.close();
  });

  it('fetches granted refs into refs/remotes/origin/ with their objects; a missing ref is reported, not written', async () => {
    const r = await h.rt.call(envelope('git.fetch', { remote: 'origin', refs: ['main', 'refs/heads/feature/a', 'feature/missing'] }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(r.normalized_action?.effect_class, 'read');
    const refs = (r.result as { refs: { ref: string; oid: string | null; tracking_ref: string }[] }).refs;
    assert.deepEqual(
      refs.map((x) => [x.ref, x.oid, x.tracking_ref]),
      [
        ['refs/heads/main', upstream, 'refs/remotes/origin/main'],
        ['refs/heads/feature/a', upstream, 'refs/remotes/origin/feature/a'],
        ['refs/heads/feature/missing', null, 'refs/remotes/origin/feature/missing'],
      ],
    );
    assert.equal(git(h.workspace, 'rev-parse', 'refs/remotes/origin/main'), upstream);
    assert.equal(git(h.workspace, 'cat-file', '-t', upstream), 'commit', 'the objects are in the workspace repository');
    assert.equal(git(h.workspace, 'for-each-ref', '--format=%(refname)', 'refs/remotes/origin/feature/missing'), '');
  });

  it('a ref outside the grant is denied with nothing fetched', async () => {
    const before = server.connections;
    const r = await h.rt.call(envelope('git.fetch', { remote: 'origin', refs: ['main', 'secret'] }));
    assert.equal(r.error?.code, 'policy_denied');
    assert.equal(server.connections, before);
  });
});
