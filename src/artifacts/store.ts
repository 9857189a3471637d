import { closeSync, existsSync, fstatSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { ToolgateError, type ArtifactRef, type Digest } from '../protocol/index.js';
import type { ArtifactSink, ArtifactWriter } from '../registry/index.js';
import { StreamRedactor } from '../redact/index.js';
import { partName, readInto, syncDirectories, type TreePacer } from '../resources/index.js';

const DIGEST_RE = /^sha256:([0-9a-f]{64})$/;

/**
 * Roles whose bytes are a copy of workspace state kept to restore it (fs.undo, reconcile):
 * stored exactly, or undo would write the redaction marker into the user's file. Everything
 * else (command output, collected files, spilled results) is redacted before it is written.
 */
const EXACT_ROLE = /^(?:preimage|preimages|tree):/;

export interface ArtifactStoreOptions {
  /** Exact values redacted from every artifact besides workspace images (RuntimeOptions.secrets). */
  readonly secrets?: readonly string[];
  /**
   * In a folder several hosts share: this host's name (`hostIdentity()`). Its half-written parts
   * then go to `tmp/<host>/`, so that a host sweeping its crash leftovers never removes a part
   * another host is writing (whose process it cannot see).
   */
  readonly sharedBy?: string;
}

export function isExactRole(role: string): boolean {
  return EXACT_ROLE.test(role);
}

/**
 * Content-addressed blobs under `<dir>/sha256/<2 hex>/<62 hex>`. A blob is written to a
 * temporary file in its final folder, fsync'ed and renamed, so a reader sees all of it or none.
 */
export class ArtifactStore implements ArtifactSink {
  readonly dir: string;
  /** Where this store's writers keep their parts until sealed (beneath `dir`: a rename, not a copy). */
  readonly partsDir: string;
  readonly #secrets: readonly string[];
  /** Folders that took a blob's name (or a new folder) and are not synced yet. */
  readonly #unsynced = new Set<string>();
  /** The syncs under way, each after the one before (durable()). */
  #syncing: Promise<void> = Promise.resolve();

  constructor(dir: string, opts: ArtifactStoreOptions = {}) {
    this.dir = dir;
    this.partsDir = opts.sharedBy === undefined ? join(dir, 'tmp') : join(dir, 'tmp', opts.sharedBy.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64));
    this.#secrets = opts.secrets ?? [];
    this.#madeFolders(mkdirSync(join(dir, 'sha256'), { recursive: true, mode: 0o700 }), join(dir, 'sha256'));
  }

  /** Folders a recursive mkdir made, from `made` (its first) down to `leaf`: each one's entry is in its parent, to sync. */
  #madeFolders(made: string | undefined, leaf: string): void {
    if (made === undefined) return;
    for (let d = leaf; d.length >= made.length && d !== dirname(d); d = dirname(d)) this.#unsynced.add(dirname(d));
  }

  pathOf(digest: Digest): string {
    const m = DIGEST_RE.exec(digest);
    if (!m) throw new ToolgateError('invalid_resource', `not an artifact digest: ${digest}`, { digest });
    const hex = m[1] as string;
    return join(this.dir, 'sha256', hex.slice(0, 2), hex.slice(2));
  }

  put(data: Uint8Array | string, mediaType: string, role: string): ArtifactRef {
    const w = this.writer(mediaType, role);
    w.write(typeof data === 'string' ? Buffer.from(data) : data);
    return w.close();
  }

  /**
   * Every blob sealed so far is durable under its name: the folders that took its name (and a
   * folder made for it) are synced. A blob's bytes are synced before its rename; the rename is an
   * entry of its folder, which a file system need not commit with the next sync of another file
   * (ext4 does, XFS and btrfs do not), so a receipt naming a preimage could outlive it at a
   * power loss. The commit stage awaits this before the receipt. The syncs start when a blob is
   * sealed, on the libuv pool, so they mostly run while the call finishes its effect.
   */
  durable(): Promise<void> {
    this.#startSyncs();
    return this.#syncing;
  }

  #startSyncs(): void {
    if (this.#unsynced.size === 0) return;
    const dirs = [...this.#unsynced];
    this.#unsynced.clear();
    const sync = async (): Promise<void> => {
      const fds: number[] = [];
      try {
        for (const d of dirs) {
          try {
            fds.push(openSync(d, 'r'));
          } catch (e) {
            // A folder removed since holds nothing to keep; any other failure is tried again.
            if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
          }
        }
        await syncDirectories(fds);
      } finally {
        for (const fd of fds) closeSync(fd);
      }
    };
    // A sync that failed is tried again by the next durable(); each waits for the ones before.
    this.#syncing = this.#syncing
      .catch(() => undefined)
      .then(sync)
      .catch((e: unknown) => {
        for (const d of dirs) this.#unsynced.add(d);
        throw e;
      });
    this.#syncing.catch(() => undefined); // awaited by durable(); not an unhandled rejection meanwhile
  }

  has(digest: Digest): boolean {
    return existsSync(this.pathOf(digest));
  }

  get(digest: Digest): Buffer {
    let data: Buffer;
    try {
      data = readFileSync(this.pathOf(digest));
    } catch (e) {
      throw new ToolgateError('not_found', `no artifact ${digest}`, { digest }, { cause: e });
    }
    const actual = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    if (actual !== digest) throw new ToolgateError('internal_error', `artifact ${digest} is corrupt`, { digest, actual });
    return data;
  }

  async getPaced(digest: Digest, pacer: TreePacer): Promise<Buffer> {
    let fd: number;
    try {
      fd = openSync(this.pathOf(digest), 'r');
    } catch (e) {
      throw new ToolgateError('not_found', `no artifact ${digest}`, { digest }, { cause: e });
    }
    try {
      const size = fstatSync(fd).size;
      const data = Buffer.allocUnsafe(size);
      const hash = createHash('sha256');
      let got = 0;
      await pacer.slices(size, (at, n) => {
        const part = readInto(fd, data.subarray(at, at + n), at);
        hash.update(part);
        got += part.length;
      });
      const actual = `sha256:${hash.digest('hex')}`;
      if (got !== size || actual !== digest) throw new ToolgateError('internal_error', `artifact ${digest} is corrupt`, { digest, actual });
      return data;
    } finally {
      closeSync(fd);
    }
  }

  /** A writer whose bytes are redacted as they stream in (across write boundaries), unless the role is exact. */
  writer(mediaType: string, role: string): ArtifactWriter {
    const raw = this.#rawWriter(mediaType, role);
    if (isExactRole(role)) return raw;
    const redactor = new StreamRedactor(this.#secrets);
    return {
      write: (chunk) => raw.write(redactor.push(chunk)),
      close: () => {
        raw.write(redactor.flush());
        return raw.close();
      },
      abort: () => raw.abort(),
    };
  }

  #rawWriter(mediaType: string, role: string): ArtifactWriter {
    mkdirSync(this.partsDir, { recursive: true, mode: 0o700 });
    const tmp = join(this.partsDir, partName()); // names its owner, for sweepArtifactParts after a crash
    const fd = openSync(tmp, 'wx', 0o600);
    const hash: Hash = createHash('sha256');
    let bytes = 0;
    let done = false;
    /** Bytes written since the last sync (a close then syncs them itself). */
    let dirty = true;
    let syncFailed: { readonly error: unknown } | null = null;
    const finish = (): void => {
      done = true;
      closeSync(fd);
    };
    return {
      write(chunk: Uint8Array): void {
        if (done) throw new Error('artifact writer is closed');
        hash.update(chunk);
        let off = 0;
        while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
        bytes += chunk.length;
        dirty = true;
      },
      sync(): void {
        if (done) throw new Error('artifact writer is closed');
        if (syncFailed) throw syncFailed.error;
        try {
          fsyncSync(fd);
          dirty = false;
        } catch (e) {
          // Never retried: after a failed fsync the kernel may have dropped the dirty pages.
          syncFailed = { error: e };
          throw e;
        }
      },
      syncAsync(): Promise<void> {
        if (done) return Promise.reject(new Error('artifact writer is closed'));
        if (syncFailed) return Promise.reject(syncFailed.error);
        const wrote = bytes;
        return new Promise<void>((resolve, reject) =>
          fsync(fd, (e) => {
            if (e) {
              syncFailed = { error: e }; // never retried, as above
              reject(e);
              return;
            }
            if (bytes === wrote) dirty = false;
            resolve();
          }),
        );
      },
      close: (): ArtifactRef => {
        if (done) throw new Error('artifact writer is closed');
        if (syncFailed) throw syncFailed.error;
        if (dirty) fsyncSync(fd);
        finish();
        const digest = `sha256:${hash.digest('hex')}` as Digest;
        const final = this.pathOf(digest);
        this.#madeFolders(mkdirSync(dirname(final), { recursive: true, mode: 0o700 }), dirname(final));
        // A blob already there was sealed by another writer, whose durable() covers it (or whose
        // sync is under way: durable() waits for those too).
        if (existsSync(final)) unlinkSync(tmp);
        else {
          renameSync(tmp, final);
          this.#unsynced.add(dirname(final));
          this.#startSyncs();
        }
        return { digest, bytes, media_type: mediaType, role };
      },
      abort(): void {
        if (done) return;
        finish();
        try {
          unlinkSync(tmp);
        } catch {
          // already gone
        }
      },
    };
  }
}
