import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCommand } from './command.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';
import { installHint } from './install-hint.js';

/** One line of `toolgate doctor`. */
export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** What to do about a failed check. */
  readonly fix?: string;
}

const APPARMOR_USERNS = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

function apparmorRestricts(): boolean {
  try {
    return readFileSync(APPARMOR_USERNS, 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/**
 * Checks what shell.exec needs on this host: bubblewrap present, a namespace sandbox that really
 * starts (not just a binary on disk), cgroups for the process cap and measurements, git and rg.
 */
export async function sandboxDoctor(opts: Pick<SandboxOptions, 'bwrapPath'> = {}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-doctor-')));
  try {
    const sandbox = new Sandbox({ workspace: dir, ...opts });
    const h = sandbox.host;
    if (h.bwrap) {
      let version = '';
      try {
        version = execFileSync(h.bwrap, ['--version'], { encoding: 'utf8' }).trim();
      } catch {
        version = 'version unknown';
      }
      checks.push({ name: 'bubblewrap', ok: true, detail: `${h.bwrap} (${version})` });
      const r = await sandbox.run({ argv: ['sh', '-c', 'grep CapEff /proc/self/status'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000 });
      const started = r.reason === 'exited' && r.exit_code === 0 && /CapEff:\s+0+\n/.test(r.stdout.preview);
      checks.push(
        started
          ? { name: 'namespace sandbox', ok: true, detail: 'a sandbox started with every namespace unshared and no capabilities' }
          : {
              name: 'namespace sandbox',
              ok: false,
              detail: `bubblewrap did not start a sandbox: ${r.reason} ${r.exit_code ?? r.signal ?? ''} ${r.stderr.preview.trim()}`.trim(),
              fix: apparmorRestricts()
                ? `AppArmor restricts unprivileged user namespaces (Ubuntu 24.04+). Either allow bwrap with an AppArmor profile (/etc/apparmor.d/bwrap: "abi <abi/4.0>, include <tunables/global> profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, }", then "sudo apparmor_parser -r /etc/apparmor.d/bwrap"), or "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"`
                : 'check that user namespaces are enabled (sysctl user.max_user_namespaces > 0) and that bwrap runs: bwrap --ro-bind / / true',
            },
      );
    } else {
      checks.push({ name: 'bubblewrap', ok: false, detail: 'not found', fix: `${installHint('bwrap')}; without it shell.exec refuses with isolation_unavailable` });
    }
    const bases = Object.keys(h.cgroups.bases);
    checks.push(
      h.cgroups.bases.pids
        ? { name: 'cgroups', ok: true, detail: `cgroup v1 controllers usable: ${bases.join(', ')}` }
        : {
            name: 'cgroups',
            ok: false,
            detail: `${h.cgroups.missing ?? 'no pids cgroup'}${bases.length ? `; usable: ${bases.join(', ')}` : ''}`,
            fix: 'run as root on a cgroup v1 host, or the process cap falls back to RLIMIT_NPROC (which does not bind root)',
          },
    );
    if (h.strayFds.length) checks.push({ name: 'inherited descriptors', ok: true, detail: `closed before each sandbox: ${h.strayFds.join(' ')}` });
    for (const tool of ['git', 'rg'] as const) {
      const at = resolveCommand(tool, dir, process.env['PATH'] ?? '/usr/bin:/bin');
      checks.push(at ? { name: tool, ok: true, detail: at } : { name: tool, ok: false, detail: 'not found on PATH', fix: installHint(tool) });
    }
    checks.push({ name: 'apparmor userns restriction', ok: true, detail: existsSync(APPARMOR_USERNS) ? (apparmorRestricts() ? 'on' : 'off') : 'not present' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return checks;
}
