import type { ErrorCode } from './error-codes.js';
import type { ErrorData, ErrorDataArgs, ErrorDataByCode } from './error-data.js';

const MARKER = Symbol.for('toolgate.error');

/** The wire form of an error inside a receipt: JSON read back from storage, so its data is plain. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly data: ErrorData;
}

/**
 * The one error class that crosses layers. `code` is from the enum, `data` is the typed data of
 * that code (src/protocol/error-data.ts: the compiler checks `new ToolgateError('path_escape',
 * msg, { path })`), `cause` keeps the original. Pipeline stages throw it; the runtime turns it
 * into a receipt.
 */
export class ToolgateError<C extends ErrorCode = ErrorCode> extends Error {
  readonly [MARKER] = true;
  readonly code: C;
  readonly data: ErrorDataByCode[C];

  constructor(code: C, message: string, ...[data, options]: ErrorDataArgs<C, { cause?: unknown }>) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgateError';
    this.code = code;
    // A code known only at run time takes plain JSON (ErrorDataOf); the field keeps the code's type.
    this.data = (data ?? {}) as ErrorDataByCode[C];
  }

  /** Narrows to an error whose code is not known statically: its data reads as plain JSON. */
  static isInstance(value: unknown): value is ToolgateError & { readonly data: ErrorData } {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** An error body built without throwing (a tool's domain failure), its data checked like the constructor's. */
export function errorBody<C extends ErrorCode>(code: C, message: string, ...[data]: ErrorDataArgs<C, never>): ErrorBody {
  return { code, message, data: data ?? {} };
}
