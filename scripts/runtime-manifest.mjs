#!/usr/bin/env node
// Part of `npm pack` (prepack, after the build and the SBOM): writes dist/runtime-manifest.json,
// every file the package ships with its sha256 and the lock's runtime dependency tree, with the
// manifest's digest: the runtime_digest receipts of this package will name (docs/release.md).
// `toolgate version --verify` checks an installation against it. Uses the built provenance
// code, so the manifest is computed by the same code that recomputes it at run time. It reports
// on stderr: `npm pack --json` prints its answer on stdout, and prepack runs inside it.
import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
const { computeManifest, packageRootOf, shippedForm, RUNTIME_MANIFEST_PATH } = await import(pathToFileURL(join(root, 'dist/src/provenance/index.js')).href);
const pkg = packageRootOf(pathToFileURL(join(root, 'dist/src/provenance/index.js')));
const manifest = shippedForm(await computeManifest(pkg, join(root, 'package-lock.json')));
const out = join(root, RUNTIME_MANIFEST_PATH);
writeFileSync(`${out}.tmp`, JSON.stringify(manifest, null, 1) + '\n');
renameSync(`${out}.tmp`, out);
console.error(`${RUNTIME_MANIFEST_PATH}: ${manifest.files.length} files, ${manifest.dependencies.length} runtime dependencies, ${manifest.digest}`);
