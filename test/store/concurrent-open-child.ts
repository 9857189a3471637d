// Opens a SqliteStore on each folder read from stdin (one per line) and answers one line per
// folder: `ok` and the journal mode, or the failure as JSON. sqlite-concurrent-open.test.ts starts several of these
// and sends each folder to all of them at once.
import { createInterface } from 'node:readline';
import { SqliteStore } from '../../src/store/sqlite/store.js';

process.stdout.write('ready\n');
for await (const dir of createInterface({ input: process.stdin })) {
  try {
    const store = new SqliteStore({ dir });
    const mode = String(store.db.pragma('journal_mode', { simple: true }));
    await store.close();
    process.stdout.write(`ok ${mode}\n`);
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown; data?: unknown };
    process.stdout.write(`${JSON.stringify({ code: err.code, message: err.message, data: err.data })}\n`);
  }
}
