import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package (or the checkout) a module of Toolgate runs from. */
export interface PackageRoot {
  /** The folder holding Toolgate's package.json. */
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  /** package.json `files`: what `npm pack` ships (besides package.json, README, LICENSE). */
  readonly files: readonly string[];
  /**
   * Where the running code lives, relative to `dir`: `dist/src` in a package, `src` in a
   * checkout run under tsx (then the manifest digests `src`, the code that runs, not `dist/src`).
   */
  readonly codeDir: string;
}

/** The built code's folder as package.json `files` names it. */
export const BUILT_CODE_DIR = 'dist/src';

/**
 * Finds the package a module belongs to: the nearest folder above it with a package.json named
 * `toolgate`. `moduleUrl` is this layer's own module by default, so the answer is the package
 * that is running, wherever it was installed.
 */
export function packageRootOf(moduleUrl: string | URL = import.meta.url): PackageRoot {
  const file = fileURLToPath(moduleUrl);
  let dir = dirname(file);
  for (;;) {
    const pkgPath = join(dir, 'package.json');
    if (existsSync(pkgPath)) {
      const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { name?: string; version?: string; files?: string[] };
      if (pkg.name === 'toolgate') {
        const rel = relative(dir, dirname(file)).split(sep);
        // This module sits in <codeDir>/provenance; the layer folders' parent is the code dir.
        const codeDir = rel.slice(0, rel.indexOf('provenance') === -1 ? rel.length : rel.indexOf('provenance')).join('/');
        return { dir, name: pkg.name, version: pkg.version ?? '0.0.0', files: pkg.files ?? [], codeDir: codeDir === '' ? BUILT_CODE_DIR : codeDir };
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`no toolgate package.json above ${file}`);
    dir = up;
  }
}
