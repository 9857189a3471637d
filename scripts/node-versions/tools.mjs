// The MCP tools that need Node >= 22 (the Inspector, the conformance suite), installed from their
// own lock in scripts/node-versions/tools/ with the Node that will run them, so npm checks their
// engines against that Node and the main lock keeps its Node 20 floor.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Test files that need Node >= 22. */
export const NODE22_DIR = 'test/node22';

const TOOLS = join(dirname(fileURLToPath(import.meta.url)), 'tools');

/** Installs the tools with `node` on PATH first (npm runs under it); true when they are there. */
export function ensureNode22Tools(node) {
  if (existsSync(join(TOOLS, 'node_modules', '.package-lock.json'))) return true;
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? '/usr/bin:/bin'}` };
  const r = spawnSync('npm', ['ci', '--prefix', TOOLS, '--no-audit', '--no-fund'], { stdio: 'inherit', env });
  if (r.status !== 0) console.error(`could not install the Node 22 test tools (npm ci --prefix ${TOOLS} exited ${r.status})`);
  return r.status === 0;
}
