import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { digestOf, type Digest } from '../protocol/index.js';
import { shippedFiles, type ManifestFile } from './files.js';
import { runtimeDependencies, type LockedDependency } from './lock.js';
import { BUILT_CODE_DIR, type PackageRoot } from './package-root.js';

export const RUNTIME_MANIFEST_FORMAT = 'toolgate.runtime-manifest.v1';

/** Where `npm pack` (prepack) writes the manifest, relative to the package root; shipped with it. */
export const RUNTIME_MANIFEST_PATH = 'dist/runtime-manifest.json';

/**
 * What a runtime is made of (docs/release.md): every shipped file with its sha256, and the
 * runtime dependency tree the lock resolved. Its digest (`runtimeDigestOf`) is the
 * `runtime_digest` every receipt names.
 */
export interface RuntimeManifest {
  readonly format: typeof RUNTIME_MANIFEST_FORMAT;
  readonly package: { readonly name: string; readonly version: string };
  readonly files: readonly ManifestFile[];
  readonly dependencies: readonly LockedDependency[];
}

/** The manifest as shipped: the manifest and its digest, so a reader can check one against the other. */
export interface ShippedManifest extends RuntimeManifest {
  readonly digest: Digest;
}

/** The digest of the manifest's canonical JSON (RFC 8785): the runtime's name in receipts. */
export function runtimeDigestOf(m: RuntimeManifest): Digest {
  const { format, package: pkg, files, dependencies } = m;
  return digestOf({ format, package: pkg, files, dependencies });
}

/** The shipped file list of a package: `files`, with the built code swapped for the running code in a checkout. */
export function shippedEntries(root: PackageRoot): string[] {
  return root.files.map((f) => (f.replace(/\/+$/, '') === BUILT_CODE_DIR ? root.codeDir : f)).filter((f) => f !== RUNTIME_MANIFEST_PATH);
}

/**
 * The dependency tree the package was built with: from `lockPath` when given (a checkout, or
 * `npm pack`), else from the manifest the package shipped (npm never ships package-lock.json).
 * A package packed without its prepack step (`npm pack --ignore-scripts`) has neither: its tree
 * is unknown, recorded as empty, and its digest covers its files only (docs/release.md).
 */
export async function lockedDependencies(root: PackageRoot, lockPath?: string): Promise<LockedDependency[]> {
  if (lockPath !== undefined) return runtimeDependencies(JSON.parse(await readFile(lockPath, 'utf8')));
  try {
    return runtimeDependencies(JSON.parse(await readFile(join(root.dir, 'package-lock.json'), 'utf8')));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return [...((await readShippedManifest(root))?.dependencies ?? [])];
}

/** Computes the manifest from the files on disk now. */
export async function computeManifest(root: PackageRoot, lockPath?: string): Promise<RuntimeManifest> {
  const [files, dependencies] = await Promise.all([shippedFiles(root.dir, shippedEntries(root), new Set([RUNTIME_MANIFEST_PATH])), lockedDependencies(root, lockPath)]);
  return { format: RUNTIME_MANIFEST_FORMAT, package: { name: root.name, version: root.version }, files, dependencies };
}

/** The manifest `npm pack` wrote into the package, or null when there is none (a checkout). */
export async function readShippedManifest(root: PackageRoot): Promise<ShippedManifest | null> {
  let text: string;
  try {
    text = await readFile(join(root.dir, RUNTIME_MANIFEST_PATH), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const m = JSON.parse(text) as ShippedManifest;
  if (m.format !== RUNTIME_MANIFEST_FORMAT) throw new TypeError(`${RUNTIME_MANIFEST_PATH} is not a ${RUNTIME_MANIFEST_FORMAT}`);
  return m;
}

/** The manifest with its digest, as `npm pack` ships it. */
export function shippedForm(m: RuntimeManifest): ShippedManifest {
  return { ...m, digest: runtimeDigestOf(m) };
}
