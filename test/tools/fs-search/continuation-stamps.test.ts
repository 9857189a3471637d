// The `seen` digest of a continuation token (continuation.ts statDigest): taken from the fstat of
// the open the engine searched when this page opened the file, else from an lstat. Both give the
// same digest for an unchanged file (else every next page would be stale), and a file changed
// after it was searched, before the token is issued, no longer matches what the next page sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo } from './fixture.js';
import { Workspace } from '../../../src/resources/index.js';
import { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { statDigest } from '../../../src/tools/fs-search/continuation.js';

test('opened stamps and lstats agree on unchanged files; a change after the search shows', () => {
  const root = makeRepo();
  const ws = Workspace.open(root);
  try {
    const files = ['lib.js', 'lib/x.js', 'src/a.ts', 'src/b.py', 'src/gone.ts'];
    const reader = new FileReader(ws);
    for (const f of files) {
      const fd = reader.open(f);
      if (fd !== null) closeSync(fd);
    }
    reader.close();
    const opened = (p: string): string | null => reader.openedStamp(p);
    assert.equal(opened('lib.js') !== null && opened('src/gone.ts') === null, true);
    assert.equal(statDigest(root, files, files.length, opened), statDigest(root, files, files.length));
    // Searched as it was, then changed before the token: the next page's lstat sees the change.
    utimesSync(join(root, 'src', 'a.ts'), new Date(1_000_000), new Date(1_000_000));
    assert.notEqual(statDigest(root, files, files.length, opened), statDigest(root, files, files.length));
    assert.equal(statDigest(root, files, 2, opened), statDigest(root, files, 2), 'files up to the cursor only');
  } finally {
    ws.close();
    rmSync(root, { recursive: true, force: true });
  }
});
