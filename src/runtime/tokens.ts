import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ToolgateError, canonicalJson, constantTimeEqual, hmacSha256, type TaskId } from '../protocol/index.js';
import type { TokenCodec } from '../registry/index.js';
import { guarded, type Store } from '../store/index.js';
import { syncFolder } from '../resources/index.js';

const KEY_BYTES = 32;

/** Writes a fresh key to a temporary file and fsyncs it; the caller links or renames it into place. */
function stagedKey(dir: string): string {
  const tmp = join(dir, `.continuation.key.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    const key = randomBytes(KEY_BYTES);
    let off = 0;
    while (off < key.length) off += writeSync(fd, key, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

function readKey(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * The state dir's HMAC key, mode 0600. It appears whole or not at all: written to a temporary
 * file, fsync'ed, then linked into place (link fails if another runtime won: both use its key)
 * and the directory fsync'ed. A torn key left by an older Toolgate (0 bytes after a crash) is
 * moved aside and replaced: tokens signed with it are lost anyway and fail as
 * invalid_continuation; the state dir stays usable. A state dir that cannot be written is
 * `store_unavailable`.
 */
export function loadTokenKey(stateDir: string): Buffer {
  return guarded('load the continuation key', stateDir, () => {
    const path = join(stateDir, 'continuation.key');
    for (let attempt = 0; attempt < 8; attempt++) {
      const key = readKey(path);
      if (key !== null && key.length === KEY_BYTES) return key;
      if (key !== null) {
        // Torn: only one runtime wins moving it aside; the others look again.
        try {
          renameSync(path, join(stateDir, `continuation.key.torn-${randomBytes(4).toString('hex')}`));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
      const tmp = stagedKey(stateDir);
      try {
        linkSync(tmp, path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      } finally {
        unlinkSync(tmp);
      }
      syncFolder(stateDir);
    }
    throw new ToolgateError('store_unavailable', `${path} keeps changing; another process is rewriting it`, { operation: 'load the continuation key', state_dir: stateDir, cause_code: null });
  });
}

/**
 * The key that signs continuation tokens. A store that shares keys (`Store.sharedKey`) holds it,
 * so that a token one host minted verifies on every host of that store; a state dir's
 * `continuation.key` from before is adopted when the store has no key yet (its tokens stay
 * valid). A store without shared keys keeps it in the state dir (`loadTokenKey`).
 */
export async function continuationKey(store: Pick<Store, 'sharedKey'>, stateDir: string): Promise<Buffer> {
  if (!store.sharedKey) return loadTokenKey(stateDir);
  const legacy = guarded('load the continuation key', stateDir, () => readKey(join(stateDir, 'continuation.key')));
  return store.sharedKey('continuation', legacy?.length === KEY_BYTES ? legacy : undefined);
}

/**
 * Continuation tokens: `v1.<payload>.<mac>`, base64url. The MAC covers the kind (which tool
 * issued it), the task, and the payload the tool binds (path, digest, offset, query …).
 */
export class HmacTokenCodec implements TokenCodec {
  readonly #key: Buffer;
  readonly #task: TaskId;

  constructor(key: Buffer, task: TaskId) {
    this.#key = key;
    this.#task = task;
  }

  sign(kind: string, payload: Readonly<Record<string, unknown>>): string {
    const body = Buffer.from(canonicalJson({ k: kind, t: this.#task, p: payload })).toString('base64url');
    return `v1.${body}.${hmacSha256(this.#key, body).toString('base64url')}`;
  }

  verify(kind: string, token: string): Record<string, unknown> {
    const bad = (why: string): ToolgateError => new ToolgateError('invalid_continuation', `continuation token rejected: ${why}`, { reason: why });
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') throw bad('malformed');
    const [, body, mac] = parts as [string, string, string];
    if (!constantTimeEqual(Buffer.from(mac, 'base64url'), hmacSha256(this.#key, body))) throw bad('signature does not match');
    let decoded: { k?: unknown; t?: unknown; p?: unknown };
    try {
      decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof decoded;
    } catch {
      throw bad('malformed');
    }
    if (decoded.k !== kind) throw bad(`issued by ${String(decoded.k)}, not ${kind}`);
    if (decoded.t !== this.#task) throw bad('issued to another task');
    if (typeof decoded.p !== 'object' || decoded.p === null) throw bad('malformed');
    return decoded.p as Record<string, unknown>;
  }
}
