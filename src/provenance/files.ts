import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** One shipped file: its path from the package root (forward slashes), size and sha256. */
export interface ManifestFile {
  readonly path: string;
  readonly bytes: number;
  /** Hex sha256 of the bytes; `symlink:<target>` for a symbolic link. */
  readonly sha256: string;
}

/** Files npm ships whatever `files` says (npm-packlist's always-included list) that a package of ours has. */
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE'];

/** Files read at once: enough to overlap the reads, few enough to leave descriptors to the host. */
const READ_CONCURRENCY = 16;

/**
 * Every regular file under `entries` (files or folders, relative to `root`), with its digest,
 * sorted by path. `exclude` names files left out (the manifest itself). A symbolic link is
 * recorded by its target text, never followed: a link in the package that pointed elsewhere
 * must show up as what it is. Reads are asynchronous: the runtime does this once at start, and
 * the event loop keeps answering while it runs.
 */
export async function shippedFiles(root: string, entries: readonly string[], exclude: ReadonlySet<string>): Promise<ManifestFile[]> {
  const found = new Map<string, ManifestFile | null>();
  const visit = async (rel: string): Promise<void> => {
    if (exclude.has(rel) || found.has(rel)) return;
    let st;
    try {
      st = await lstat(join(root, rel));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (st.isDirectory()) {
      for (const n of (await readdir(join(root, rel))).sort()) await visit(`${rel}/${n}`);
    } else if (st.isFile()) {
      found.set(rel, null);
    } else if (st.isSymbolicLink()) {
      found.set(rel, { path: rel, bytes: 0, sha256: `symlink:${await readlink(join(root, rel))}` });
    }
  };
  for (const e of [...ALWAYS_SHIPPED, ...entries]) await visit(e.replace(/^\.\//, '').replace(/\/+$/, ''));
  const todo = [...found].filter(([, f]) => f === null).map(([p]) => p);
  const worker = async (): Promise<void> => {
    for (let p = todo.pop(); p !== undefined; p = todo.pop()) {
      const bytes = await readFile(join(root, p));
      found.set(p, { path: p, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  return [...found.values()].filter((f): f is ManifestFile => f !== null).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Hex sha256 of a file of any size, streamed (a host binary can be tens of megabytes). */
export function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
