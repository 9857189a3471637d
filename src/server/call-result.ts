// A receipt as an MCP tool result: succeeded → structured result; anything else → isError with
// the typed error in structured content. The receipt id and status always go in `_meta`; the text
// content (what a model reads) is made by result-text/ from the same receipt.
import type { ErrorBody, Receipt } from '../protocol/index.js';
import { failureText, successText } from './result-text/index.js';

export interface McpCallResult {
  [key: string]: unknown;
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent: Record<string, unknown>;
  readonly isError?: true;
  readonly _meta: Record<string, unknown>;
}

export interface ResultShaping {
  /**
   * A succeeded result whose JSON is larger is withheld and answered as an `isError` result
   * with `limit_exceeded` (the receipt keeps it): a stdio client closes the connection on a
   * message over 10 MiB, and JSON escaping can make a 4 MiB page several times larger.
   */
  readonly maxResultBytes: number;
  /**
   * The bound of the text content in UTF-8 bytes. A result without its own text rendering is
   * repeated as JSON up to this size (above it, a short summary), so that no message carries a
   * large result twice; a rendered text (fs.read, shell.exec, failures) is cut to it.
   */
  readonly textCopyLimitBytes: number;
}

/** What the text rendering needs from the call beyond its receipt. */
export interface CallTextContext {
  /** The arguments the client sent (rendering options such as fs.read's line_numbers). */
  readonly args: Readonly<Record<string, unknown>>;
  /** Whether fs.undo can revert receipts of this tool. */
  readonly undoable: boolean;
  /**
   * `line`: a success's text is one line naming the receipt, for a client that reads
   * structuredContent (the `structured` result form); the rendering is not made at all.
   */
  readonly successText?: 'full' | 'line';
}

const NO_CALL_CONTEXT: CallTextContext = { args: {}, undoable: false };

export const DEFAULT_RESULT_SHAPING: ResultShaping = { maxResultBytes: 8 * 1024 * 1024, textCopyLimitBytes: 256 * 1024 };

function metaOf(r: Receipt): Record<string, unknown> {
  return {
    'toolgate/receipt_id': r.receipt_id,
    'toolgate/status': r.status,
    'toolgate/task_id': r.task_id,
    'toolgate/tool': r.tool,
    'toolgate/tool_version': r.tool_version,
    'toolgate/truncated': r.truncated,
    ...(r.replay ? { 'toolgate/replay': true } : {}),
    ...(r.attached === true ? { 'toolgate/attached': true } : {}),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function summaryOf(result: Record<string, unknown>, bytes: number, r: Receipt): string {
  const fields = Object.entries(result).map(([k, v]) => {
    if (typeof v === 'string') return v.length > 80 ? `${k}: <${Buffer.byteLength(v)} bytes>` : `${k}: ${JSON.stringify(v)}`;
    if (v === null || typeof v !== 'object') return `${k}: ${JSON.stringify(v)}`;
    return `${k}: <${Array.isArray(v) ? `${v.length} items` : 'object'}>`;
  });
  return `${r.tool} ${r.status} (receipt ${r.receipt_id}); ${bytes} bytes of structured result: ${fields.join(', ')}`;
}

function withheld(r: Receipt, bytes: number, limit: number): McpCallResult {
  const error = {
    code: 'limit_exceeded',
    message: `the result is ${bytes} bytes as JSON, over the ${limit} bytes one MCP message may carry; ask for a smaller page (e.g. a lower max_bytes)`,
    data: { result_bytes: bytes, limit_bytes: limit, receipt_id: r.receipt_id },
  };
  return {
    content: [{ type: 'text', text: `${r.tool} ${r.status} but not sent: ${error.message} (receipt ${r.receipt_id})` }],
    structuredContent: { status: r.status, receipt_id: r.receipt_id, error },
    isError: true,
    _meta: { ...metaOf(r), 'toolgate/withheld': true },
  };
}

/**
 * At least the UTF-8 bytes of `JSON.stringify(v)`, found without writing it (every UTF-16 unit of
 * a string as a 6-byte escape, every number as 24 characters); Infinity past `limit`, or for what
 * the walk does not price (a toJSON, a BigInt, a depth past 64: JSON.stringify then decides).
 */
export function jsonBytesBound(v: unknown, limit: number): number {
  let total = 0;
  const walk = (x: unknown, depth: number): boolean => {
    if (total > limit || depth > 64) return false;
    switch (typeof x) {
      case 'string':
        total += 2 + 6 * x.length;
        return true;
      case 'number':
        total += 24;
        return true;
      case 'boolean':
      case 'undefined': // left out of an object, null in an array
      case 'function':
      case 'symbol':
        total += 5;
        return true;
      case 'bigint':
        return false;
      case 'object': {
        if (x === null) {
          total += 4;
          return true;
        }
        if (typeof (x as { toJSON?: unknown }).toJSON === 'function') return false;
        if (Array.isArray(x)) {
          total += 2 + x.length;
          for (const e of x) if (!walk(e, depth + 1)) return false;
          return true;
        }
        total += 2;
        for (const k in x) {
          if (!Object.hasOwn(x, k)) continue;
          total += 4 + 6 * k.length;
          if (!walk((x as Record<string, unknown>)[k], depth + 1)) return false;
        }
        return true;
      }
    }
  };
  return walk(v, 0) && total <= limit ? total : Infinity;
}

export function callResultOf(r: Receipt, shaping: ResultShaping = DEFAULT_RESULT_SHAPING, call: CallTextContext = NO_CALL_CONTEXT): McpCallResult {
  const textContext = { ...call, maxBytes: shaping.textCopyLimitBytes };
  // Accepted and still running (shell.session's yield) is no error: its text says how to go on.
  if ((r.status === 'succeeded' || r.status === 'accepted_async') && isObject(r.result)) {
    const result = r.result;
    // The result's JSON is written only when it is needed: to measure a result the bound does
    // not show to fit, or as the text of one without a rendering (a 4 KiB page's was 4.5 µs of
    // each MCP call, to learn it was far under the limit).
    let json: string | undefined;
    const jsonOf = (): string => (json ??= JSON.stringify(result));
    if (jsonBytesBound(result, shaping.maxResultBytes) > shaping.maxResultBytes) {
      const bytes = Buffer.byteLength(jsonOf());
      if (bytes > shaping.maxResultBytes) return withheld(r, bytes, shaping.maxResultBytes);
    }
    const spilled = result['inline'] === false && typeof result['artifact'] === 'string';
    const text = call.successText === 'line'
      ? `${r.tool} ${r.status} (receipt ${r.receipt_id}); the result is in structuredContent`
      : spilled
      ? `${r.tool} ${r.status}; the result (${String(result['bytes'])} bytes) was too large to send and is stored as artifact ${String(result['artifact'])} (receipt ${r.receipt_id}); ask for a smaller page`
      : successText(r, result, jsonOf, () => summaryOf(result, Buffer.byteLength(jsonOf()), r), textContext);
    return { content: [{ type: 'text', text }], structuredContent: result, _meta: metaOf(r) };
  }
  // A non-succeeded receipt (or a success without an object result, which the schema cannot carry).
  const error: ErrorBody = r.error ?? { code: 'internal_error', message: `${r.tool} ended ${r.status} without a result object`, data: {} };
  const structured: Record<string, unknown> = {
    status: r.status,
    receipt_id: r.receipt_id,
    error,
    ...(r.result === null || r.result === undefined ? {} : { result: r.result }),
    ...(r.partial === null ? {} : { partial: r.partial }),
  };
  return {
    content: [{ type: 'text', text: failureText(r, error, textContext) }],
    structuredContent: structured,
    isError: true,
    _meta: metaOf(r),
  };
}
