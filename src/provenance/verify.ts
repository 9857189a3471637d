import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Digest } from '../protocol/index.js';
import { computeManifest, readShippedManifest, runtimeDigestOf, RUNTIME_MANIFEST_PATH } from './manifest.js';
import type { PackageRoot } from './package-root.js';

/** One way the installed runtime differs from the manifest it shipped with. */
export type ManifestDifference =
  | { readonly kind: 'changed'; readonly path: string; readonly expected: string; readonly actual: string }
  | { readonly kind: 'missing'; readonly path: string }
  | { readonly kind: 'extra'; readonly path: string }
  | { readonly kind: 'dependency_missing'; readonly name: string; readonly expected: string }
  | { readonly kind: 'dependency_version'; readonly name: string; readonly expected: string; readonly actual: string }
  | { readonly kind: 'manifest_digest'; readonly path: string; readonly expected: string; readonly actual: string };

export type VerifyReport =
  | { readonly kind: 'no_manifest'; readonly root: string; readonly digest: Digest }
  | { readonly kind: 'checked'; readonly root: string; readonly shipped: Digest; readonly digest: Digest; readonly ok: boolean; readonly differences: readonly ManifestDifference[] };

/**
 * `toolgate version --verify`: recomputes the manifest from the installed files and compares it
 * with the one `npm pack` shipped. Each file that changed, went missing or was added is named;
 * the shipped manifest must match its own digest (an edited manifest is not a new baseline); and
 * each runtime dependency the lock placed at the top of node_modules must resolve, from the
 * package, to the locked version (nested ones are laid out by the installing project's npm).
 */
export async function verifyInstalled(root: PackageRoot): Promise<VerifyReport> {
  const shipped = await readShippedManifest(root);
  const now = await computeManifest(root);
  const digest = runtimeDigestOf(now);
  if (shipped === null) return { kind: 'no_manifest', root: root.dir, digest };
  const differences: ManifestDifference[] = [];
  const own = runtimeDigestOf(shipped);
  if (own !== shipped.digest) differences.push({ kind: 'manifest_digest', path: RUNTIME_MANIFEST_PATH, expected: shipped.digest, actual: own });
  const want = new Map(shipped.files.map((f) => [f.path, f.sha256]));
  const have = new Map(now.files.map((f) => [f.path, f.sha256]));
  for (const [path, sha] of want) {
    const got = have.get(path);
    if (got === undefined) differences.push({ kind: 'missing', path });
    else if (got !== sha) differences.push({ kind: 'changed', path, expected: sha, actual: got });
  }
  for (const path of have.keys()) if (!want.has(path)) differences.push({ kind: 'extra', path });
  for (const dep of shipped.dependencies) {
    if (dep.path !== `node_modules/${dep.name}`) continue;
    const installed = await installedVersion(root.dir, dep.name);
    if (installed === null) {
      if (!dep.optional) differences.push({ kind: 'dependency_missing', name: dep.name, expected: dep.version });
    } else if (installed !== dep.version) differences.push({ kind: 'dependency_version', name: dep.name, expected: dep.version, actual: installed });
  }
  return { kind: 'checked', root: root.dir, shipped: shipped.digest, digest, ok: differences.length === 0, differences };
}

/** The version of `name` that Node's resolution finds from `dir`: node_modules folders from `dir` up. */
async function installedVersion(dir: string, name: string): Promise<string | null> {
  for (let d = dir; ; d = dirname(d)) {
    try {
      const pkg = JSON.parse(await readFile(join(d, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
      return pkg.version ?? '';
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
    }
    if (dirname(d) === d) return null;
  }
}

/** One line per difference, for the command line. */
export function describeDifference(d: ManifestDifference): string {
  switch (d.kind) {
    case 'changed':
      return `changed  ${d.path} (sha256 ${d.actual.slice(0, 16)}…, shipped ${d.expected.slice(0, 16)}…)`;
    case 'missing':
      return `missing  ${d.path}`;
    case 'extra':
      return `extra    ${d.path}`;
    case 'dependency_missing':
      return `missing  dependency ${d.name}@${d.expected}`;
    case 'dependency_version':
      return `changed  dependency ${d.name}: ${d.actual} installed, ${d.expected} locked`;
    case 'manifest_digest':
      return `changed  ${d.path}: its content digests to ${d.actual}, not the ${d.expected} it names`;
  }
}
