// The multi-host cases on one PostgreSQL database (the test run's private cluster,
// freshDatabase()): the store for hosts on several machines. Host a reaches the server through
// a relay (pg-proxy.ts) that a test can cut, as a network partition would.
import { freshDatabase } from '../support/postgres.js';
import { describeHostCases } from './cases.js';
import { postgresBackend } from '../store/postgres-backend.js';
import { PgProxy } from './pg-proxy.js';

describeHostCases('PostgreSQL', {
  fresh: async () => {
    const db = await freshDatabase();
    const proxy = new PgProxy(db.url);
    await proxy.restore();
    return {
      stores: [
        { kind: 'postgres', url: proxy.urlFor(db.url) },
        { kind: 'postgres', url: db.url },
      ],
      cliStore: ['--store-url', db.url],
      tamper: async (id: string) => void (await postgresBackend.tamper(db.url, id, 'alter', false)),
      cut: () => proxy.cut(),
      restore: () => proxy.restore(),
      drop: async () => {
        await proxy.close();
        await db.drop();
      },
    };
  },
  canCut: true,
});
