import type { ErrorCode } from './error-codes.js';

const MARKER = Symbol.for('toolgate.error');

/** Plain JSON data carried by an error; never a message to parse. */
export type ErrorData = { readonly [key: string]: unknown };

/** The wire form of an error inside a receipt. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly data: ErrorData;
}

/**
 * The one error class that crosses layers. `code` is from the enum, `data` is typed JSON,
 * `cause` keeps the original. Pipeline stages throw it; the runtime turns it into a receipt.
 */
export class ToolgateError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  readonly data: ErrorData;

  constructor(code: ErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgateError';
    this.code = code;
    this.data = data;
  }

  static isInstance(value: unknown): value is ToolgateError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, data: this.data };
  }
}

export function errorBody(code: ErrorCode, message: string, data: ErrorData = {}): ErrorBody {
  return { code, message, data };
}
