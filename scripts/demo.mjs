#!/usr/bin/env node
// npm run demo: a few calls through the real CLI in a throwaway workspace, then the receipts
// they left and the audit of their hash chain.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'toolgate-demo-'));
const ws = join(base, 'workspace');
const state = join(base, 'state');
mkdirSync(ws);
writeFileSync(join(ws, 'hello.txt'), 'hello from the workspace\n');
writeFileSync(join(ws, '.env'), 'API_TOKEN=do-not-leak-me\n');

function toolgate(...args) {
  const r = spawnSync(process.execPath, [bin, ...args, '--workspace', ws, '--state-dir', state], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function call(title, tool, args) {
  const r = toolgate('call', tool, '--args', JSON.stringify(args), '--task', 'demo');
  const receipt = JSON.parse(r.out);
  const what = receipt.error ? `${receipt.error.code}: ${receipt.error.message}` : JSON.stringify(receipt.result).slice(0, 110);
  console.log(`\n$ toolgate call ${tool} --args '${JSON.stringify(args)}'    # ${title}`);
  console.log(`  exit ${r.code}  status=${receipt.status}  receipt=${receipt.receipt_id}`);
  console.log(`  ${what}`);
  return receipt;
}

try {
  console.log(`workspace: ${ws}\nstate:     ${state}`);
  call('a bounded read', 'fs.read', { path: 'hello.txt' });
  call('a path that leaves the workspace', 'fs.read', { path: '../state/toolgate.db' });
  call('a secret path', 'fs.read', { path: '.env' });
  const w = call('an atomic write', 'fs.write', { path: 'notes.md', content: '# notes\n', mode: 'create' });
  call('the same create again: typed refusal', 'fs.write', { path: 'notes.md', content: '# other\n', mode: 'create' });
  call('a command in the sandbox', 'shell.exec', { argv: ['sh', '-c', 'ls; echo done'] });
  console.log(`\n$ toolgate undo ${w.receipt_id}`);
  const u = toolgate('undo', w.receipt_id, '--task', 'demo');
  console.log(`  exit ${u.code}  status=${JSON.parse(u.out).status}`);
  console.log('\n$ toolgate receipts list --task demo');
  console.log(toolgate('receipts', 'list', '--task', 'demo').out.trimEnd());
  console.log('\n$ toolgate audit verify');
  console.log(toolgate('audit', 'verify').out.trimEnd());
} finally {
  rmSync(base, { recursive: true, force: true });
}
