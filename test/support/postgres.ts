// The test run's PostgreSQL server (scripts/run-tests.mjs starts a private cluster and names it in
// TOOLGATE_TEST_PG_URL): each test that needs PostgreSQL gets a fresh, empty database of its own.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ENV = 'TOOLGATE_TEST_PG_URL';

/** The test server's URL; throws (never skips) when the run did not start one. */
export function testServerUrl(): string {
  const url = process.env[ENV];
  if (!url) {
    throw new Error(`${ENV} is not set: run the tests with \`node scripts/run-tests.mjs\` (it starts a private PostgreSQL cluster) or set ${ENV} to a server's postgres:// URL`);
  }
  return url;
}

/** The same server's URL with another database name (the host, a socket folder, stays a query parameter). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onServer<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new empty database (random name) on the test server; `drop()` removes it, closing its sessions. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tg_${randomBytes(8).toString('hex')}`;
  await onServer((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(testServerUrl(), name),
    drop: () => onServer(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}
