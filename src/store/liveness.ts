// Whether the runtime that holds an in-flight effect record (claimed or sent) is gone. The rule
// belongs to no backend: every store asks it, so that SQLite and PostgreSQL take over exactly
// the same records.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** After its deadline plus this, a record still in flight on another host is taken as abandoned. */
export const ABANDON_GRACE_MS = 5_000;

/** Whether a process with this id runs on this host (EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The name this process gives its host in effect records (`owner_host`): `TOOLGATE_HOST_ID`
 * when set, else the OS host name. Hosts sharing one database must have distinct names (two
 * containers may share a host name): a process id is only checked on a record of the same host.
 */
export function hostIdentity(env: NodeJS.ProcessEnv = process.env): string {
  const id = env['TOOLGATE_HOST_ID']?.trim();
  return id !== undefined && id !== '' ? id : hostname();
}

/** The fields of a record (EffectRecord) that say who holds it and until when. */
export interface Holding {
  readonly task_id: string;
  readonly effect_key: string;
  readonly owner: string;
  readonly owner_pid: number;
  readonly owner_host: string;
  /** Epoch ms. */
  readonly deadline: number;
}

const heldKey = (task: string, key: string): string => `${task}\u0000${key}`;

/**
 * One store instance as the owner of the records it claims: its id, process and host, and the
 * records it holds for a call still running. A record this owner claimed but no longer holds is
 * an orphan (its call ended without settling it).
 */
export class EffectOwner {
  readonly id: string;
  readonly pid = process.pid;
  /** How this host names itself in the records it owns: a pid means something only on its own host. */
  readonly host: string;
  readonly #held = new Set<string>();

  constructor(id = `rt_${randomUUID()}`, host = hostIdentity()) {
    this.id = id;
    this.host = host;
  }

  hold(task: string, key: string): void {
    this.#held.add(heldKey(task, key));
  }

  letGo(task: string, key: string): void {
    this.#held.delete(heldKey(task, key));
  }

  /**
   * The rule: a record of this owner is abandoned once no call of it holds the record; of
   * another owner on this host, once its process is gone; on another host (whose processes
   * cannot be seen), once its deadline plus a grace has passed.
   */
  abandoned(rec: Holding, now: number): boolean {
    if (rec.owner === this.id) return !this.#held.has(heldKey(rec.task_id, rec.effect_key));
    if (rec.owner_host === this.host) return !pidAlive(rec.owner_pid);
    return now > rec.deadline + ABANDON_GRACE_MS;
  }
}
