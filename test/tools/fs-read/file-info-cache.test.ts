// The file facts cache keeps a file that is being paged while other files are read in between
// (least recently used goes first). Before, it was first-in-first-out: 256 other reads pushed the
// paged file out and its next page hashed the whole file again.
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileInfoCache } from '../../../src/tools/fs-read/file-info.js';
import { tempDirs } from '../../support/fixtures.js';

test('a file read again and again stays cached while 40 others pass through a cache of 8', async () => {
  const d = tempDirs('tg-file-info');
  const cache = new FileInfoCache(8);
  const signal = new AbortController().signal;
  const infoOf = async (name: string) => {
    const fd = openSync(join(d.workspace, name), 'r');
    try {
      return (await cache.get(fd, signal)).info;
    } finally {
      closeSync(fd);
    }
  };
  try {
    writeFileSync(join(d.workspace, 'paged.txt'), 'a\n'.repeat(1000));
    for (let i = 0; i < 40; i++) writeFileSync(join(d.workspace, `other-${i}.txt`), `${i}\n`);
    const first = await infoOf('paged.txt');
    let rescans = 0;
    for (let i = 0; i < 40; i++) {
      await infoOf(`other-${i}.txt`);
      if (i % 4 === 3 && (await infoOf('paged.txt')) !== first) rescans++;
    }
    assert.equal(first.total_lines, 1000);
    assert.equal(rescans, 0, 'the paged file was scanned again');
  } finally {
    d.cleanup();
  }
});
