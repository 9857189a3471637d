import { TOOLGATE_VERSION } from '../protocol/index.js';
import { describeDifference, packageRootOf, readShippedManifest, verifyInstalled, runningRuntimeDigest } from '../provenance/index.js';
import { parse } from './options.js';
import type { Command } from './usage.js';

export const versionCommand: Command = {
  name: 'version',
  summary: 'this runtime\'s version and digest; --verify checks the installed files against the shipped manifest',
  help: `toolgate version [--verify] [--json]

Prints Toolgate's version, the runtime digest receipts name this installation by (the digest of
its manifest: every shipped file's sha256 and the lock's runtime dependency tree, recomputed from
the installed files) and the digest of the manifest the package shipped (dist/runtime-manifest.json,
written by npm pack). The two are equal for an untouched installation.

--verify  recompute the manifest and name every file that changed, is missing or was added, and
          every top-level runtime dependency installed at another version than the lock's. Exit 1
          when anything differs, or when there is no shipped manifest to verify against (a
          checkout run from source: npm run build && npm run sbom && npm run manifest writes one).
--json    the same as one JSON object.`,
  async run(argv, io) {
    const { values } = parse(argv, { verify: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, false);
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const root = packageRootOf();
    if (!values.verify) {
      const [digest, shipped] = await Promise.all([runningRuntimeDigest(root), readShippedManifest(root)]);
      const info = { version: TOOLGATE_VERSION, root: root.dir, runtime_digest: digest, shipped_digest: shipped?.digest ?? null };
      if (values.json) io.out(JSON.stringify(info, null, 2));
      else io.out([`toolgate ${TOOLGATE_VERSION}`, `root            ${root.dir}`, `runtime digest  ${digest}`, `shipped digest  ${shipped?.digest ?? '(none: not a packed package)'}`].join('\n'));
      return 0;
    }
    const report = await verifyInstalled(root);
    if (values.json) {
      io.out(JSON.stringify({ version: TOOLGATE_VERSION, ...report, ok: report.kind === 'checked' && report.ok }, null, 2));
      return report.kind === 'checked' && report.ok ? 0 : 1;
    }
    if (report.kind === 'no_manifest') {
      io.err(`toolgate version --verify: ${report.root} has no shipped manifest (dist/runtime-manifest.json): nothing to verify against. Runtime digest ${report.digest}`);
      return 1;
    }
    for (const d of report.differences) io.out(describeDifference(d));
    io.out(
      report.ok
        ? `ok: ${report.root} matches its manifest ${report.shipped}`
        : `FAIL: ${report.differences.length} differences from the shipped manifest ${report.shipped}; this installation's digest is ${report.digest}. Reinstall the package (docs/release.md#rollback).`,
    );
    return report.ok ? 0 : 1;
  },
};
