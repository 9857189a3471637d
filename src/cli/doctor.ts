import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxDoctor, type DoctorCheck } from '../sandbox/index.js';
import { checkDatabase, probePostgres, probeSqlite } from '../store/index.js';
import { Workspace } from '../resources/index.js';
import { defaultStateDir } from '../runtime/index.js';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { configPath, loadConfig } from './config.js';
import type { Command } from './usage.js';
import type { ChainReport } from '../store/index.js';
import { checkWorkspace } from './startup-faults.js';
import { storeChoice } from './store-choice.js';
import { ToolgateError } from '../protocol/index.js';
import { probeHostTools } from '../provenance/index.js';

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
  return [...checks, ...chainChecks(health.chain, aside, 'keep the database as evidence and give a new --state-dir')];
}

function chainChecks(c: ChainReport | { readonly unreadable: string }, aside: string, fresh: string): DoctorCheck[] {
  if ('unreadable' in c) return [{ name: 'receipt chains', ok: false, detail: `cannot be read: ${c.unreadable}`, fix: aside }];
  if (c.ok) return [{ name: 'receipt chains', ok: true, detail: `${c.receipts} receipts in ${c.tasks} tasks verify (audit verify)` }];
  const first = c.broken[0];
  const where = first ? `task ${first.task_id}: receipt #${first.seq} ${first.receipt_id}: ${first.reason}` : '';
  return [{ name: 'receipt chains', ok: false, detail: `${c.broken.length} broken of ${c.tasks} tasks; ${where}`, fix: `toolgate audit verify names each broken link; ${fresh}` }];
}

/** A configured PostgreSQL store, instead of the state dir's SQLite file: it connects, its schema version, the receipt chains. */
async function postgresChecks(url: string, stateDir: string, from: string): Promise<DoctorCheck[]> {
  let health;
  try {
    health = await probePostgres(url, stateDir);
  } catch (e) {
    const where = ToolgateError.isInstance(e) && typeof e.data['database'] === 'string' ? e.data['database'] : 'the database';
    return [{ name: 'database', ok: false, detail: `PostgreSQL (${from}): ${where} cannot be used: ${(e as Error).message}`, fix: `start the server, create the database, or correct ${from}` }];
  }
  const at = Object.entries(health.schema).map(([k, v]) => `${k} v${v}`).join(', ');
  const want = Object.entries(health.expected).map(([k, v]) => `${k} v${v}`).join(', ');
  const newer = Object.entries(health.schema).filter(([k, v]) => v > (health.expected[k] ?? 0));
  const schema: DoctorCheck =
    newer.length > 0
      ? { name: 'database', ok: false, detail: `PostgreSQL ${health.server_version} (${from}): schema ${at} is newer than this Toolgate (${want})`, fix: 'upgrade Toolgate on this host to the version the other hosts run' }
      : {
          name: 'database',
          ok: true,
          detail: at === '' ? `PostgreSQL ${health.server_version} (${from}) connects; schema not created yet (the first call creates ${want})` : `PostgreSQL ${health.server_version} (${from}) connects; schema ${at}${at === want ? '' : ` (this Toolgate migrates it to ${want})`}`,
        };
  return [schema, ...(health.chain === null ? [] : chainChecks(health.chain, 'keep the database as evidence; restore it from a backup', 'keep the database as evidence'))];
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check this host: node, bubblewrap sandbox, cgroups, ripgrep, git, state dir, SQLite, the database',
  help: `toolgate doctor [--json] [--workspace DIR] [--state-dir DIR] [--store-url URL]

Checks what Toolgate needs on this host; each line is ok or FAIL with the fix. Exit 1 when a
required check fails (node, bubblewrap, namespace sandbox, state dir, sqlite, and the state
dir's database: PRAGMA integrity_check and the receipt chains of audit verify); cgroups, git
and ripgrep only degrade features. With a PostgreSQL store (--store-url, TOOLGATE_STORE_URL or
store in the configuration) the database check connects to it instead and reads its schema
version and receipt chains, changing nothing. The host tools the runtime runs (bubblewrap,
ripgrep, git, util-linux script, chromium) are listed with path, version and sha256
(\`host_tools\` with --json), as a task's first receipt records them.`,
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
    const store = storeChoice(values['store-url'], loaded);
    const storeChecks =
      store.kind === 'postgres'
        ? await postgresChecks(store.url, stateDir, store.from)
        : [await sqliteCheck(), ...(stateCheck.ok ? await databaseChecks(stateDir) : [])];
    const [sandbox, hostTools] = await Promise.all([sandboxDoctor(), probeHostTools()]);
    const checks = [nodeCheck(), ...sandbox, stateCheck, ...storeChecks];
    const failed = checks.filter((c) => !c.ok && REQUIRED.has(c.name));
    if (values.json) {
      // host_tools: what the first receipt of each task records too (docs/release.md#host-tools).
      io.out(JSON.stringify({ ok: failed.length === 0, checks: checks.map((c) => ({ ...c, required: REQUIRED.has(c.name) })), host_tools: hostTools }, null, 2));
    } else {
      for (const c of checks) {
        io.out(`${c.ok ? 'ok  ' : REQUIRED.has(c.name) ? 'FAIL' : 'warn'}  ${c.name.padEnd(28)} ${c.detail}`);
        if (!c.ok && c.fix) io.out(`      fix: ${c.fix}`);
      }
      for (const t of hostTools) io.out(`tool  ${t.name.padEnd(28)} ${t.path === null ? 'not found' : `${t.resolved ?? t.path} ${t.version ?? '(no version)'} sha256:${t.sha256?.slice(0, 16) ?? '?'}…`}`);
    }
    return failed.length === 0 ? 0 : 1;
  },
};
