import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAt } from '../../../src/tools/fs-search/openat.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

describe('openAt', () => {
  it('opens a name in a directory fd close-on-exec, without following a link, failing like node:fs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fs-search-openat-'));
    const dirfd = openSync(dir, O_RDONLY | O_DIRECTORY);
    try {
      writeFileSync(join(dir, 'a.txt'), 'inside\n');
      symlinkSync('/etc/hostname', join(dir, 'out'));
      const fd = openAt(dirfd, 'a.txt', O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      try {
        assert.equal(readFileSync(fd, 'utf8'), 'inside\n');
        // flags in /proc/self/fdinfo are octal; 02000000 is O_CLOEXEC.
        const flags = parseInt(/^flags:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '0', 8);
        assert.ok(flags & 0o2000000, 'close-on-exec');
      } finally {
        closeSync(fd);
      }
      assert.throws(() => openAt(dirfd, 'out', O_RDONLY | O_NOFOLLOW | O_NONBLOCK), (e: NodeJS.ErrnoException) => e.code === 'ELOOP');
      assert.throws(() => openAt(dirfd, 'missing', O_RDONLY | O_NOFOLLOW), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
    } finally {
      closeSync(dirfd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
