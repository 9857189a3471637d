// The multi-host cases on one SQLite file shared by two processes of one machine (their state
// dirs differ; the store is the one file). PostgreSQL is the store for hosts on several machines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeHostCases } from './cases.js';
import { sqliteBackend } from '../store/sqlite-backend.js';

describeHostCases('SQLite', {
  fresh: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-sqlite-hosts-'));
    return {
      stores: [
        { kind: 'sqlite', dir },
        { kind: 'sqlite', dir },
      ],
      cliStore: ['--state-dir', dir],
      tamper: async (id: string) => void (await sqliteBackend.tamper(dir, id, 'alter', false)),
      drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  canCut: false,
});
