import { bindGrant, grantDigest, type TaskGrant } from '../policy/index.js';
import type { TaskId } from '../protocol/index.js';
import type { Runtime } from '../runtime/index.js';

/**
 * A task keeps the grant issued at its first call (docs/policy.md), so `--grant FILE` for a task
 * that already holds a different grant changes nothing. Say so, on stderr, before the call runs:
 * a warning, not a refusal, because the call itself is valid and runs under the grant in force.
 */
export async function ignoredGrantWarning(rt: Runtime, task: TaskId, file: string, given: TaskGrant): Promise<string | undefined> {
  const held = await rt.store.grants.getGrant(task);
  if (held === undefined) return undefined;
  if (grantDigest(bindGrant(given, held.subject)) === grantDigest(held)) return undefined;
  return `warning: task ${task} already holds the grant issued at its first call; --grant ${file} is ignored for it (a task keeps its grant: give a new --task to issue this one)`;
}
