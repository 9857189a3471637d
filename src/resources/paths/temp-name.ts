// Names of the temporary entries Toolgate makes beside a target (staged files, trees moved aside
// for deletion, trees being restored) and in the artifact store. Each name carries its owner:
// pid, the process's start time (clock ticks since boot, field 22 of /proc/<pid>/stat) and the
// boot id, so that a sweep can tell a crashed owner's leftovers from a live process's work.
// A pid alone is not enough: pids are reused, and they restart at every boot.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const TEMP_RE = /^\.tg-(?:(\d+)-(\d+)-([0-9a-f]{8})-)?[0-9a-f]{16}\.(tmp|del|restore)$/;
const PART_RE = /^(?:(\d+)-(\d+)-([0-9a-f]{8})-)?[0-9a-f]{24}\.part$/;

function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(/-/g, '').slice(0, 8);
  } catch {
    return '00000000';
  }
}

let self: string | undefined;
/** `<pid>-<start ticks>-<boot id prefix>` of this process. */
export function ownerTag(): string {
  self ??= `${process.pid}-${startTimeOf(process.pid) ?? '0'}-${bootId()}`;
  return self;
}

/** A fresh temporary name in the workspace: `.tg-<owner>-<16 hex>.<kind>`. */
export function tempName(kind: 'tmp' | 'del' | 'restore'): string {
  return `.tg-${ownerTag()}-${randomBytes(8).toString('hex')}.${kind}`;
}

/** A fresh artifact part name: `<owner>-<24 hex>.part`. */
export function partName(): string {
  return `${ownerTag()}-${randomBytes(12).toString('hex')}.part`;
}

/** Whether `name` (one component) is a Toolgate temporary entry in the workspace. */
export function isToolgateTempName(name: string): boolean {
  return TEMP_RE.test(name);
}

/**
 * True when the entry's owner is certainly gone: another boot, no such pid, or a pid now held
 * by a process that started at another time. Names without an owner (made before owners were
 * recorded) count as gone. `null` when the name is not a Toolgate temporary name at all.
 */
export function ownerIsGone(name: string): boolean | null {
  const m = TEMP_RE.exec(name) ?? PART_RE.exec(name);
  if (!m) return null;
  const [, pid, start, boot] = m;
  if (pid === undefined || start === undefined || boot === undefined) return true;
  if (boot !== bootId()) return true;
  return startTimeOf(Number(pid)) !== start;
}
