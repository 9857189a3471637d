/** Why a call's signal aborted: its deadline, its tool's timeout, the client, or its task's cancellation. */
export type AbortKind = 'deadline' | 'timeout' | 'client_cancel' | 'task_cancel';

const MARK = Symbol.for('toolgate.CallAborted');

/**
 * The reason a call's signal carries. Code that must tell a timeout from a cancellation reads
 * `kind` (through `abortKindOf`), never the name. It stays a DOMException named `AbortError`
 * (cancellations) or `TimeoutError` (deadline, timeout), so a tool that rethrows
 * `signal.reason`, and platform APIs that wrap it, see the standard abort errors.
 */
export class CallAborted extends DOMException {
  readonly kind: AbortKind;
  readonly [MARK] = true;

  constructor(kind: AbortKind) {
    super(`call aborted: ${kind}`, kind === 'client_cancel' || kind === 'task_cancel' ? 'AbortError' : 'TimeoutError');
    this.kind = kind;
  }

  /** True for a CallAborted of any copy of this module (a tool may bundle its own). */
  static isInstance(value: unknown): value is CallAborted {
    return typeof value === 'object' && value !== null && (value as { [MARK]?: unknown })[MARK] === true;
  }
}

/** The kind of a call's abort reason (`signal.reason`); null for a reason the runtime did not give. */
export function abortKindOf(reason: unknown): AbortKind | null {
  return CallAborted.isInstance(reason) ? reason.kind : null;
}
