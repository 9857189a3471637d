// `toolgate audit verify` (the built CLI) against a store several hosts share.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

export function auditVerify(workspace: string, storeArgs: readonly string[]): { code: number | null; out: string; err: string } {
  const env = { ...process.env };
  delete env['TOOLGATE_STORE_URL'];
  const r = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--workspace', workspace, ...storeArgs], { encoding: 'utf8', env, timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
