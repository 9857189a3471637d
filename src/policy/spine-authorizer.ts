import type { AttemptId, Decision, NormalizedAction, TaskId } from '../protocol/index.js';
import { CompiledGrant } from './grant-check.js';
import { bindGrant, type TaskGrant } from './grant.js';

export const SPINE_POLICY_VERSION = 'grant-only.v1';

/**
 * The spine's grant-only check (no Cedar, no binding to a task): kept so the runtime works
 * until it calls `PolicyAuthorizer`. It checks what and where only.
 */
export class GrantAuthorizer {
  readonly grant: TaskGrant;
  readonly #compiled: CompiledGrant;

  constructor(grant: TaskGrant) {
    this.grant = grant;
    this.#compiled = new CompiledGrant(
      bindGrant(grant, { tenant: 'local', principal: 'local', task_id: '*' as TaskId, attempt_id: null as AttemptId | null, cancellation_epoch: 0 }),
    );
  }

  get digest(): CompiledGrant['digest'] {
    return this.#compiled.digest;
  }

  authorize(action: NormalizedAction): Decision {
    const faults = this.#compiled.checkScope(action);
    return {
      outcome: faults.length === 0 ? 'allow' : 'deny',
      reasons: faults.map((f) => f.reason),
      determining: faults.map((f) => f.id),
      policy_version: SPINE_POLICY_VERSION,
      grant_digest: this.digest,
    };
  }
}
