// Issue 21's fault matrix on the PostgreSQL store: the child runtime and the one that recovers
// share one database (a fresh one per case on the test run's cluster, test/support/postgres.ts);
// during_commit fires in the PostgreSQL receipt batch once its transaction committed, before the
// caller is answered. A representative subset of the tools, one per way a crashed effect settles
// (the store's part, the effect record's transitions, the stored intent, the receipt chain, is
// the same for every tool; what differs per tool is its reconcile, which the SQLite matrix covers):
//   fs.patch (two files)    released and run again, completed by reconcile from its stored intent,
//                           or a set torn by the crash rolled back from stored pre-images
//   shell.exec              ambiguous, reconciliation_required (the record must be listed ambiguous)
//   http.request            an external effect looked up at the provider by its key
import { FS_CASES, httpCase } from './failpoint-cases.js';
import { matrixTests, type NamedCase } from './failpoint-matrix.js';
import { freshDatabase } from '../support/postgres.js';

const pick = (tool: string, torn = false): NamedCase => {
  const c = FS_CASES.find((x) => x.tool === tool && (x.tornAtCrash === true) === torn);
  if (c === undefined) throw new Error(`no case ${tool}`);
  return { name: `${tool}${torn ? ' (two files)' : ''} on PostgreSQL`, make: () => Promise.resolve(c) };
};

matrixTests('failpoint matrix on PostgreSQL', [pick('fs.patch', true), pick('shell.exec'), { name: 'http.request on PostgreSQL', make: httpCase }], { pg: freshDatabase });
