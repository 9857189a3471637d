import { StartupError, type PolicyFault } from '../../protocol/index.js';

export type { PolicyFault };

const MARKER = Symbol.for('toolgate.policy_load_error');

/** A policy set that does not parse or fails strict validation: the runtime refuses to start with it. */
export class PolicyLoadError extends StartupError<'invalid_policy'> {
  readonly [MARKER] = true;

  constructor(message: string, faults: readonly PolicyFault[]) {
    super('invalid_policy', faults.length ? `${message}: ${faults.map((f) => (f.policy_id ? `${f.policy_id}: ${f.message}` : f.message)).join('; ')}` : message, {
      reason: 'invalid',
      faults,
    });
    this.name = 'PolicyLoadError';
  }

  get faults(): readonly PolicyFault[] {
    return this.data.faults;
  }

  static override isInstance(value: unknown): value is PolicyLoadError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
