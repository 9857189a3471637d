// A private PostgreSQL cluster for one test or benchmark run: `initdb` in a fresh temporary
// folder, listening only on a unix socket in that folder (no TCP port, so runs side by side never
// collide), fsync and synchronous_commit on as in production, stopped and removed at the end.
//
// PostgreSQL refuses to run as root: when we are root, the cluster is made and run as the
// `postgres` user (the Debian package creates it), and the folder is handed to that user.
// Only Node's own modules: it runs before anything is built (scripts/run-tests.mjs, bench/).
import { accessSync, appendFileSync, chownSync, closeSync, constants, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

/** The environment variable that names the test server (a postgres:// URL). */
export const TEST_PG_URL_ENV = 'TOOLGATE_TEST_PG_URL';

/** Generous bounds: a 2-core machine shared with other test runs can be very slow. */
const START_TIMEOUT_S = 180;
const READY_ATTEMPTS = 120;

const SERVER_PROGRAMS = ['initdb', 'pg_ctl', 'pg_isready'];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder of PostgreSQL's server programs (initdb, pg_ctl and pg_isready together): on PATH (Fedora,
 * Arch), else Debian's /usr/lib/postgresql/<version>/bin, the newest version first. Null if none.
 */
export function postgresBinDir(path = process.env.PATH ?? '/usr/bin:/bin') {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    if (SERVER_PROGRAMS.every((p) => executable(join(dir, p)))) return dir;
  }
  let versions = [];
  try {
    versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  } catch {
    return null;
  }
  for (const v of versions) {
    const dir = join('/usr/lib/postgresql', v, 'bin');
    if (SERVER_PROGRAMS.every((p) => executable(join(dir, p)))) return dir;
  }
  return null;
}

/** The uid and gid of the `postgres` user, from /etc/passwd. */
function postgresUser() {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error("running as root, but there is no 'postgres' user to run PostgreSQL as (install the postgresql package)");
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Makes and starts a private cluster; returns its URL (user `postgres`, database `postgres`,
 * host = the socket folder) and `stop()`, which stops the server and removes the folder (safe to
 * call twice). Throws with the server's log when it cannot start, having cleaned up.
 */
export function startPostgresCluster({ prefix = 'toolgate-pg-' } = {}) {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server programs (initdb, pg_ctl) not found: install the postgresql package (node scripts/prerequisites.mjs)');
  const asUser = process.getuid?.() === 0 ? postgresUser() : null;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (asUser) chownSync(dir, asUser.uid, asUser.gid);
  const run = (program, args) => {
    const out = openSync(log, 'a');
    try {
      // Output to the log file, never to a pipe: the server pg_ctl starts would keep a pipe open.
      return spawnSync(join(bin, program), args, { stdio: ['ignore', out, out], cwd: dir, ...(asUser ?? {}), timeout: START_TIMEOUT_S * 1000 });
    } finally {
      closeSync(out);
    }
  };
  if (asUser) {
    closeSync(openSync(log, 'a'));
    chownSync(log, asUser.uid, asUser.gid);
  }
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      const fast = run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      if (fast.status !== 0) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const fail = (what) => {
    let text = '';
    try {
      text = readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      // no log yet
    }
    stop();
    return new Error(`private PostgreSQL cluster: ${what}\n${text}`);
  };
  // --no-sync: initdb's own files need no fsync in a throwaway folder; the server runs with fsync on.
  const init = run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  if (init.status !== 0) throw fail(`initdb failed (${init.error?.message ?? `exit ${init.status}`})`);
  // Only the socket in `dir` (mode 0700 with the data): nobody else on the machine can connect.
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      '',
      "listen_addresses = ''",
      `unix_socket_directories = '${dir}'`,
      'fsync = on',
      'synchronous_commit = on',
      'full_page_writes = on',
      'max_connections = 400',
      'shared_buffers = 64MB',
      '',
    ].join('\n'),
  );
  const start = run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', String(START_TIMEOUT_S), 'start']);
  started = true;
  if (start.status !== 0) throw fail(`pg_ctl start failed (${start.error?.message ?? `exit ${start.status}`})`);
  let ready = false;
  for (let i = 0; i < READY_ATTEMPTS && !ready; i++) {
    ready = run('pg_isready', ['-h', dir, '-U', 'postgres', '-d', 'postgres', '-t', '5']).status === 0;
    if (!ready) sleep(500);
  }
  if (!ready) throw fail('the server did not become ready');
  // `localhost` only makes the URL well formed for URL parsers: the host parameter (the socket folder) wins.
  const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`;
  return { url, dir, stop };
}
