import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxDoctor, type DoctorCheck } from '../sandbox/index.js';
import { probeSqlite } from '../store/index.js';
import { Workspace } from '../resources/index.js';
import { defaultStateDir } from '../runtime/index.js';
import { parse, RUNTIME_OPTIONS } from './options.js';
import { configPath, loadConfig } from './config.js';
import type { Command } from './usage.js';

/** Checks whose failure leaves Toolgate unable to do its main job; the rest degrade. */
const REQUIRED = new Set(['node', 'bubblewrap', 'namespace sandbox', 'state dir', 'sqlite']);

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

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check this host: node, bubblewrap sandbox, cgroups, ripgrep, git, state dir, SQLite',
  help: `toolgate doctor [--json] [--workspace DIR] [--state-dir DIR]

Checks what Toolgate needs on this host; each line is ok or FAIL with the fix. Exit 1 when a
required check fails (node, bubblewrap, namespace sandbox, state dir, sqlite); cgroups, git and
ripgrep only degrade features.`,
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
    const checks = [nodeCheck(), ...(await sandboxDoctor()), stateCheck, await sqliteCheck()];
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
