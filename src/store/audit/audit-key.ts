// The audit key: the Ed25519 key that signs checkpoints of the ledger (docs/audit.md). It lives
// outside the state dir and outside any workspace, so that what a tool (or a restored state
// folder) can touch cannot forge or replace it; the sandbox hides its folder (runtime hidden
// paths) and the fs tools never leave the workspace. Ed25519 from node:crypto: no dependency,
// 140 µs a signature measured on the 2-core test machine at load average 16.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { type Stats, closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ToolgateError } from '../../protocol/index.js';
import { syncFolder } from '../../resources/index.js';

export interface AuditKey {
  readonly path: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** `ed25519:` + the first 16 hex of sha256 over the public key's SPKI DER. */
  readonly keyId: string;
  /** The public key's SPKI DER, base64: what a checkpoint carries so a client can check it alone. */
  readonly publicKeyB64: string;
}

/** `$TOOLGATE_AUDIT_KEY`, else `$XDG_CONFIG_HOME/toolgate/audit-key` (or `~/.config/…`). */
export function defaultAuditKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const given = env['TOOLGATE_AUDIT_KEY'];
  if (given !== undefined && given.startsWith('/')) return given;
  const base = env['XDG_CONFIG_HOME'] && env['XDG_CONFIG_HOME'].startsWith('/') ? env['XDG_CONFIG_HOME'] : join(homedir(), '.config');
  return join(base, 'toolgate', 'audit-key');
}

export function keyIdOf(publicKey: KeyObject): { keyId: string; publicKeyB64: string } {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { keyId: `ed25519:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`, publicKeyB64: der.toString('base64') };
}

function keyFailure(e: unknown, operation: string, path: string): ToolgateError {
  if (ToolgateError.isInstance(e)) return e;
  const code = (e as NodeJS.ErrnoException).code ?? null;
  return new ToolgateError('store_unavailable', `the audit key at ${path} cannot be used: ${(e as Error).message}`, { operation, cause_code: code, state_dir: dirname(path) }, { cause: e });
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : dir + '/');
}

/**
 * Loads the key at `path`, creating it (0600, in a 0700 folder) on first use. Refused when it
 * lies in a folder tools can reach (`forbidden`: the workspace, the state dir), when it is not a
 * regular file of this user, or when group or others may read it (as ssh refuses a private key).
 */
export function loadAuditKey(given: string, forbidden: readonly string[]): AuditKey {
  const path = resolve(given);
  for (const dir of forbidden) {
    if (isWithin(path, dir) || isWithin(dir, dirname(path))) {
      throw new ToolgateError('invalid_resource', `the audit key must lie outside the workspace and the state dir, where no tool can reach it: ${path}`, { path, kind: 'audit_key' });
    }
  }
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    let st: Stats | null = lstatOrNull(path);
    if (st === null) {
      create(path);
      st = lstatSync(path);
    }
    if (!st.isFile()) throw new ToolgateError('invalid_resource', `the audit key ${path} is not a regular file`, { path, kind: 'audit_key' });
    if ((st.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
      throw new ToolgateError('invalid_resource', `the audit key ${path} must belong to this user and be readable by it alone (chmod 600)`, { path, kind: 'audit_key' });
    }
    const privateKey = createPrivateKey(readFileSync(path));
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new ToolgateError('invalid_resource', `the audit key ${path} is not an Ed25519 key`, { path, kind: 'audit_key' });
    const publicKey = createPublicKey(privateKey);
    return { path, privateKey, publicKey, ...keyIdOf(publicKey) };
  } catch (e) {
    throw keyFailure(e, 'load the audit key', path);
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Written whole and synced under a temporary name, then linked in: of runtimes starting together, the first link wins and all read its key. */
function create(path: string): void {
  const pem = String(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, pem);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  syncFolder(dirname(path));
}
