// The web view's files: its own (src/ui/web, plain ES modules, no build step) and the front-end
// libraries it imports (preact, preact/hooks, htm), served from node_modules at pinned versions
// (package.json). Read once at start: they are small, and the server never touches the disk per
// request for them. The page's inline import map is allowed by its hash in the CSP, so no other
// inline script can run.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Beside this file: src/ui/web when run from the sources, dist/src/ui/web (copied by the build) when built. */
function webDir(): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'web');
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`the web view's files are missing from ${dir} (npm run build copies them)`);
  return dir;
}

/** URL path → the module a bare specifier of the import map names. */
const VENDOR: Readonly<Record<string, string>> = {
  '/vendor/preact.mjs': 'preact',
  '/vendor/preact-hooks.mjs': 'preact/hooks',
  '/vendor/htm.mjs': 'htm',
};

const OWN = ['index.html', 'app.js', 'panels.js', 'timeline.js', 'api.js', 'format.js', 'style.css'] as const;

function typeOf(file: string): string {
  const ext = file.slice(file.lastIndexOf('.'));
  return TYPES[ext] ?? 'application/octet-stream';
}

export interface AssetTable {
  readonly files: ReadonlyMap<string, Asset>;
  /** `'sha256-…'` of the page's inline import map, for script-src. */
  readonly importMapHash: string;
}

export function loadAssets(): AssetTable {
  const dir = webDir();
  const files = new Map<string, Asset>();
  for (const name of OWN) {
    const file = join(dir, name);
    files.set(name === 'index.html' ? '/' : `/${name}`, { body: readFileSync(file), type: typeOf(file) });
  }
  for (const [path, specifier] of Object.entries(VENDOR)) {
    const file = fileURLToPath(import.meta.resolve(specifier));
    files.set(path, { body: readFileSync(file), type: typeOf(file) });
  }
  const page = (files.get('/') as Asset).body.toString('utf8');
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page)?.[1];
  if (map === undefined) throw new Error('index.html has no import map');
  return { files, importMapHash: `'sha256-${createHash('sha256').update(map, 'utf8').digest('base64')}'` };
}
