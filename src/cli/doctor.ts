import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxDoctor, type DoctorCheck } from '../sandbox/index.js';
import { checkDatabase, probeSqlite } from '../store/index.js';
import { Workspace } from '../resources/index.js';
import { defaultStateDir } from '../runtime/index.js';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { configPath, loadConfig } from './config.js';
import type { Command } from './usage.js';
import { checkWorkspace } from './startup-faults.js';

/** Checks whose failure leaves Toolgate unable to do its main job; the rest degrade. */
const REQUIRED = new Set(['node', 'bubblewrap', 'namespace sandbox', 'state dir', 'sqlite', 'database', 'receipt chains']);

function nodeCheck(): DoctorCheck {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 20
    ? { name: 'node', ok: true, detail: `v${process.versions.node}` }
    : { name: 'node', ok: false, detail: `v${process.versions.node}`, fix: 'install Node.js 20 or newer' };
}

function stateDirCheck(dir: string): DoctorCheck {
  try {
    const probe = join(dir, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok', { flag: 'wx' });
    unlinkSync(probe);
    return { name: 'state dir', ok: true, detail: `${dir} is writable` };
  } catch (e) {
    return { name: 'state dir', ok: false, detail: `${dir}: ${(e as Error).message}`, fix: 'make it writable, or choose another with --state-dir' };
  }
}

async function sqliteCheck(): Promise<DoctorCheck> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-doctor-db-'));
  try {
    const { journal_mode } = await probeSqlite(dir);
    return { name: 'sqlite', ok: true, detail: `better-sqlite3 opens a database (journal_mode ${journal_mode})` };
  } catch (e) {
    return { name: 'sqlite', ok: false, detail: (e as Error).message, fix: 'reinstall: npm ci (better-sqlite3 builds a native module; it needs python3, make and g++)' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The state dir's own database: SQLite's integrity check, then the receipt chains (`audit verify`). */
async function databaseChecks(stateDir: string): Promise<DoctorCheck[]> {
  const db = join(stateDir, 'toolgate.db');
  const aside = `move it aside (mv ${db} ${db}.damaged) so the next run starts a fresh one; keep the copy for inspection`;
  let health;
  try {
    health = await checkDatabase(stateDir);
  } catch (e) {
    return [{ name: 'database', ok: false, detail: `${db} cannot be opened: ${(e as Error).message}`, fix: aside }];
  }
  if (!health.exists) return [{ name: 'database', ok: true, detail: `${db} not created yet (the first call creates it)` }];
  const integrity = health.integrity.join('; ').replace(/\s+/g, ' ');
  const checks: DoctorCheck[] = [
    integrity === 'ok'
      ? { name: 'database', ok: true, detail: `${db} passes PRAGMA integrity_check` }
      : { name: 'database', ok: false, detail: `${db} fails PRAGMA integrity_check: ${integrity.slice(0, 300)}`, fix: aside },
  ];
  const c = health.chain;
  if ('unreadable' in c) checks.push({ name: 'receipt chains', ok: false, detail: `cannot be read: ${c.unreadable}`, fix: aside });
  else if (c.ok) checks.push({ name: 'receipt chains', ok: true, detail: `${c.receipts} receipts in ${c.tasks} tasks verify (audit verify)` });
  else {
    const first = c.broken[0];
    const where = first ? `task ${first.task_id}: receipt #${first.seq} ${first.receipt_id}: ${first.reason}` : '';
    checks.push({ name: 'receipt chains', ok: false, detail: `${c.broken.length} broken of ${c.tasks} tasks; ${where}`, fix: 'toolgate audit verify names each broken link; keep the database as evidence and give a new --state-dir' });
  }
  return checks;
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check this host: node, bubblewrap sandbox, cgroups, ripgrep, git, state dir, SQLite, the database',
  help: `toolgate doctor [--json] [--workspace DIR] [--state-dir DIR]

Checks what Toolgate needs on this host; each line is ok or FAIL with the fix. Exit 1 when a
required check fails (node, bubblewrap, namespace sandbox, state dir, sqlite, and the state
dir's database: PRAGMA integrity_check and the receipt chains of audit verify); cgroups, git
and ripgrep only degrade features.`,
  async run(argv, io) {
    const { values } = parse(argv, { ...RUNTIME_OPTIONS, json: { type: 'boolean' } }, false);
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const loaded = loadConfig(values.config, values.workspace);
    const workspaceDir = values.workspace ?? configPath(loaded, loaded.config.workspace) ?? process.cwd();
    let stateDir = values['state-dir'] ?? configPath(loaded, loaded.config.state_dir);
    if (stateDir === undefined) {
      checkWorkspace(workspaceDir);
      const ws = Workspace.open(workspaceDir);
      stateDir = defaultStateDir(ws);
      ws.close();
    }
    let stateCheck: DoctorCheck;
    try {
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      stateCheck = stateDirCheck(stateDir);
    } catch (e) {
      stateCheck = { name: 'state dir', ok: false, detail: `${stateDir}: ${(e as Error).message}`, fix: 'choose a writable --state-dir' };
    }
    const checks = [nodeCheck(), ...(await sandboxDoctor()), stateCheck, await sqliteCheck(), ...(stateCheck.ok ? await databaseChecks(stateDir) : [])];
    const failed = checks.filter((c) => !c.ok && REQUIRED.has(c.name));
    if (values.json) {
      io.out(JSON.stringify({ ok: failed.length === 0, checks: checks.map((c) => ({ ...c, required: REQUIRED.has(c.name) })) }, null, 2));
    } else {
      for (const c of checks) {
        io.out(`${c.ok ? 'ok  ' : REQUIRED.has(c.name) ? 'FAIL' : 'warn'}  ${c.name.padEnd(28)} ${c.detail}`);
        if (!c.ok && c.fix) io.out(`      fix: ${c.fix}`);
      }
    }
    return failed.length === 0 ? 0 : 1;
  },
};
