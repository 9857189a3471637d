// What a mutation records so that it can be undone from its receipt alone: for every entry it
// changed, the preimage (artifact digest, sha256, mode) and the post-image digest. It lives in
// the receipt's `evidence`; fs.undo reads it back and refuses when the post-images moved on.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { sha256Hex, type ArtifactRef } from '../../protocol/index.js';
import type { FileBytes } from '../paths/atomic-replace.js';
import type { PreimageStore, PreimageWriter } from './context.js';
import type { TreePacer } from '../paths/pacer.js';

const sha = z.string().regex(/^[0-9a-f]{64}$/);

export const fileImage = z.strictObject({
  sha256: sha,
  size: z.number().int().min(0),
  mode: z.number().int().min(0).max(0o7777),
  /** Digest of the artifact that holds the bytes; null for post-images (they are in the workspace). */
  artifact: z.string().nullable(),
  /** Where the bytes start in that artifact: one call's preimages share one artifact (one fsync). */
  offset: z.number().int().min(0).default(0),
});
export type FileImage = z.infer<typeof fileImage>;

const identity = z.strictObject({ dev: z.number(), ino: z.number() });

export const changeRecord = z.discriminatedUnion('op', [
  /** A regular file created (before null), replaced, or removed (after null). */
  z.strictObject({ op: z.literal('file'), path: z.string(), before: fileImage.nullable(), after: fileImage.nullable(), created_dirs: z.array(z.string()) }),
  /** An entry moved; identity is the moved inode. `overwritten` is the preimage of a replaced target. */
  z.strictObject({
    op: z.literal('rename'),
    from: z.string(),
    to: z.string(),
    kind: z.enum(['file', 'directory', 'symlink']),
    identity,
    after_sha256: sha.nullable(),
    overwritten: fileImage.nullable(),
  }),
  /** A directory tree or a link removed; `manifest` is the artifact listing every entry. */
  z.strictObject({ op: z.literal('tree'), path: z.string(), manifest: z.string(), entries: z.number().int() }),
]);
export type ChangeRecord = z.infer<typeof changeRecord>;

export const mutationEvidence = z.object({
  workspace: z.string(),
  revision: z.string(),
  changes: z.array(changeRecord),
});
export type MutationEvidence = z.infer<typeof mutationEvidence>;

/** Puts a preimage in the artifact store and describes it. */
export function storePreimage(artifacts: PreimageStore, path: string, bytes: FileBytes, refs: ArtifactRef[]): FileImage {
  const ref = artifacts.put(bytes.data, 'application/octet-stream', `preimage:${path}`);
  refs.push(ref);
  return { sha256: sha256Hex(bytes.data), size: bytes.data.length, mode: bytes.mode, artifact: ref.digest, offset: 0 };
}

/**
 * Collects a call's preimages into one artifact, so that keeping them durable costs one fsync
 * however many files change. `seal()` writes it; the images get their digest then.
 */
export class PreimageBundle {
  readonly #chunks: Uint8Array[] = [];
  readonly #images: { -readonly [K in keyof FileImage]: FileImage[K] }[] = [];
  #size = 0;

  add(bytes: FileBytes): FileImage {
    return this.#keep(bytes, sha256Hex(bytes.data));
  }

  /** As add, hashing a large file a slice at a time (the event loop runs between slices). */
  async addPaced(bytes: FileBytes, pacer: TreePacer): Promise<FileImage> {
    return this.#keep(bytes, await sha256Paced(bytes.data, pacer));
  }

  #keep(bytes: FileBytes, sha256: string): FileImage {
    const img = { sha256, size: bytes.data.length, mode: bytes.mode, artifact: null, offset: this.#size };
    this.#chunks.push(bytes.data);
    this.#images.push(img);
    this.#size += bytes.data.length;
    return img;
  }

  get empty(): boolean {
    return this.#images.length === 0;
  }

  /**
   * The digest the sealed artifact will have, known before it is written: recorded in the
   * intent, it lets reconcile find a multi-file set's preimages (and undo it) after a crash.
   */
  digest(): string | null {
    if (this.#images.length === 0) return null;
    // One image is the whole bundle: its digest was taken by add (not hashed twice).
    if (this.#images.length === 1) return `sha256:${(this.#images[0] as FileImage).sha256}`;
    const h = createHash('sha256');
    for (const c of this.#chunks) h.update(c);
    return `sha256:${h.digest('hex')}`;
  }

  /** As digest, hashing a slice at a time. */
  async digestPaced(pacer: TreePacer): Promise<string | null> {
    if (this.#images.length < 2) return this.digest();
    const h = createHash('sha256');
    for (const c of this.#chunks) await pacer.slices(c.length, (at, n) => h.update(c.subarray(at, at + n)));
    return `sha256:${h.digest('hex')}`;
  }

  /** As stage, writing a slice at a time; sync the result with syncAsync. */
  async stagePaced(artifacts: PreimageStore, role: string, pacer: TreePacer): Promise<StagedBundle | null> {
    if (this.#images.length === 0) return null;
    const w = artifacts.writer('application/octet-stream', role);
    try {
      for (const c of this.#chunks) await pacer.slices(c.length, (at, n) => w.write(c.subarray(at, at + n)));
    } catch (e) {
      w.abort();
      throw e;
    }
    return this.#staged(w);
  }

  /**
   * Writes the artifact without syncing it, so that its fsync can run while another one does
   * (the intent's, in commitFileSet): the result's `sync()` syncs it, `seal()` renames it into
   * place (syncing first if that was not done), `abort()` drops it. Nothing is in the store
   * before `seal()`.
   */
  stage(artifacts: PreimageStore, role: string): StagedBundle | null {
    if (this.#images.length === 0) return null;
    const w = artifacts.writer('application/octet-stream', role);
    try {
      for (const c of this.#chunks) w.write(c);
    } catch (e) {
      w.abort();
      throw e;
    }
    return this.#staged(w);
  }

  #staged(w: PreimageWriter): StagedBundle {
    return {
      sync: () => w.sync?.(), // a store whose writers cannot sync on their own syncs at close
      syncAsync: async () => {
        if (w.syncAsync) await w.syncAsync();
        else w.sync?.();
      },
      seal: () => {
        const ref = w.close();
        for (const img of this.#images) img.artifact = ref.digest;
        return ref;
      },
      abort: () => w.abort(),
    };
  }

  /** Writes and seals the artifact at once (its fsync at close). */
  seal(artifacts: PreimageStore, role: string): ArtifactRef | null {
    return this.stage(artifacts, role)?.seal() ?? null;
  }

  /** As seal, writing a slice at a time and syncing on the libuv pool. */
  async sealPaced(artifacts: PreimageStore, role: string, pacer: TreePacer): Promise<ArtifactRef | null> {
    const staged = await this.stagePaced(artifacts, role, pacer);
    if (staged === null) return null;
    try {
      await staged.syncAsync();
      return staged.seal();
    } catch (e) {
      staged.abort();
      throw e;
    }
  }
}

/** A preimage bundle written and syncing, not yet in the store. */
export interface StagedBundle {
  sync(): void;
  /** The sync on the libuv pool (a large bundle): the event loop runs meanwhile. */
  syncAsync(): Promise<void>;
  seal(): ArtifactRef;
  abort(): void;
}

export function postImage(bytes: FileBytes): FileImage {
  return { sha256: sha256Hex(bytes.data), size: bytes.data.length, mode: bytes.mode, artifact: null, offset: 0 };
}

/** As postImage, hashed a slice at a time (the event loop runs between slices). */
export async function postImagePaced(bytes: FileBytes, pacer: TreePacer): Promise<FileImage> {
  return { sha256: await sha256Paced(bytes.data, pacer), size: bytes.data.length, mode: bytes.mode, artifact: null, offset: 0 };
}

/** The sha256 (hex) of `data`, hashed a slice at a time. */
export async function sha256Paced(data: Uint8Array, pacer: TreePacer): Promise<string> {
  const h = createHash('sha256');
  await pacer.slices(data.length, (at, n) => h.update(data.subarray(at, at + n)));
  return h.digest('hex');
}

/** As PreimageStore.put, written a slice at a time and synced on the libuv pool (TreePacer). */
export async function putPaced(artifacts: PreimageStore, data: string | Uint8Array, mediaType: string, role: string, pacer: TreePacer): Promise<ArtifactRef> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const w = artifacts.writer(mediaType, role);
  try {
    await pacer.slices(bytes.length, (at, n) => w.write(bytes.subarray(at, at + n)));
    await w.syncAsync?.();
    return w.close();
  } catch (e) {
    w.abort();
    throw e;
  }
}
