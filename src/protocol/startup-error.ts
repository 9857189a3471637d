import { STARTUP_ERROR_CODES, type StartupErrorCode, type StartupErrorDataArgs, type StartupErrorDataByCode } from './startup-error-data.js';

const MARKER = Symbol.for('toolgate.startup_error');
const CODE_SET: ReadonlySet<string> = new Set(STARTUP_ERROR_CODES);

export function isStartupErrorCode(value: unknown): value is StartupErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * An error that stops Toolgate before it serves anything (bad command line, configuration,
 * grant or policy). `code` is from STARTUP_ERROR_CODES and `data` is that code's typed data
 * (src/protocol/startup-error-data.ts), checked by the compiler like ToolgateError's. The CLI
 * prints every one the same way and exits 2. UsageError, GrantFileError and PolicyLoadError are
 * its named subclasses.
 */
export class StartupError<C extends StartupErrorCode = StartupErrorCode> extends Error {
  readonly [MARKER] = true;
  readonly code: C;
  readonly data: StartupErrorDataByCode[C];

  constructor(code: C, message: string, ...[data, options]: StartupErrorDataArgs<C>) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StartupError';
    this.code = code;
    this.data = (data ?? {}) as StartupErrorDataByCode[C];
  }

  /** Also true across copies of this module (a marker, not the prototype chain). */
  static isInstance(value: unknown): value is StartupError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toBody(): { readonly code: C; readonly message: string; readonly data: StartupErrorDataByCode[C] } {
    return { code: this.code, message: this.message, data: this.data };
  }
}
