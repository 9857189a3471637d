#!/usr/bin/env node
// Part of `npm run build`: the web view's own files (src/ui/web: HTML, CSS, ES modules the
// browser loads as they are) beside the compiled server in dist/src/ui/web, where it serves
// them from. tsc compiles only TypeScript, and the package ships dist/, not src/. Also the
// command's execute bit (below).
import { chmodSync, cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const to = join(root, 'dist/src/ui/web');
rmSync(to, { recursive: true, force: true });
cpSync(join(root, 'src/ui/web'), to, { recursive: true });

// The command npm links (package.json bin): tsc writes it without the execute bit.
chmodSync(join(root, 'dist/src/cli/bin.cjs'), 0o755);
