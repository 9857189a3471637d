import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ToolgateError, canonicalJson, constantTimeEqual, hmacSha256, type TaskId } from '../protocol/index.js';
import type { TokenCodec } from '../registry/index.js';

const KEY_BYTES = 32;

/** The state dir's HMAC key, created once with mode 0600 (O_EXCL: two runtimes agree on one). */
export function loadTokenKey(stateDir: string): Buffer {
  const path = join(stateDir, 'continuation.key');
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, randomBytes(KEY_BYTES));
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const key = readFileSync(path);
  if (key.length !== KEY_BYTES) throw new Error(`${path} is not a ${KEY_BYTES}-byte key`);
  return key;
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
