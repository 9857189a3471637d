const MARKER = Symbol.for('toolgate.policy_load_error');

export interface PolicyFault {
  /** `null` when the fault is not in one policy (a parse error of the whole text). */
  readonly policy_id: string | null;
  readonly message: string;
}

/** A policy set that does not parse or fails strict validation: the runtime refuses to start with it. */
export class PolicyLoadError extends Error {
  readonly [MARKER] = true;
  readonly faults: readonly PolicyFault[];

  constructor(message: string, faults: readonly PolicyFault[]) {
    super(faults.length ? `${message}: ${faults.map((f) => (f.policy_id ? `${f.policy_id}: ${f.message}` : f.message)).join('; ')}` : message);
    this.name = 'PolicyLoadError';
    this.faults = faults;
  }

  static isInstance(value: unknown): value is PolicyLoadError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
