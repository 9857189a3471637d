// The one place the text content of an MCP tool result is made (docs/mcp.md, "Text content"):
// a first line with the tool, the status, the error code and message; then what the model needs
// to act, from the typed error data (error-detail.ts) and the tool's result (a renderer per
// result shape); then the receipt id, and how to undo a change. Bounded by `maxBytes`.
import type { ErrorBody, Receipt } from '../../protocol/index.js';
import { boundedText } from './bounded.js';
import { errorDetailLines } from './error-detail.js';
import { fsReadText, isFsReadResult } from './fs-read.js';
import { fsSearchText, isFsSearchResult } from './fs-search.js';
import { mutationText } from './fs-mutations.js';
import { isShellResult, shellExecLines } from './shell-exec.js';
import { isSessionResult, shellSessionLines } from './shell-session.js';

type Data = Readonly<Record<string, unknown>>;

export interface TextContext {
  /** The call's arguments as the client sent them (only read for rendering options). */
  readonly args: Data;
  /** fs.undo can revert this tool's receipts: the text says how. */
  readonly undoable: boolean;
  /** Upper bound of the text in UTF-8 bytes. */
  readonly maxBytes: number;
}

function receiptLine(r: Receipt, undoable: boolean): string {
  return r.status === 'succeeded' && undoable
    ? `receipt ${r.receipt_id} (to revert this change: fs_undo {"receipt_id":"${r.receipt_id}"})`
    : `receipt ${r.receipt_id}`;
}

/** Text for a succeeded receipt; `json` writes (once) the result's JSON, the text of a result without a rendering. */
export function successText(r: Receipt, result: Data, json: () => string, summary: () => string, ctx: TextContext): string {
  const tail = receiptLine(r, ctx.undoable);
  const room = ctx.maxBytes - Buffer.byteLength(tail) - 1;
  let body: string;
  const change = mutationText(r.tool, result);
  if (r.tool === 'fs.read' && isFsReadResult(result)) body = fsReadText(result, ctx.args, room);
  else if (r.tool === 'shell.exec' && isShellResult(result)) body = `shell.exec succeeded: ${shellExecLines(result).join('\n')}`;
  else if (r.tool === 'fs.search' && isFsSearchResult(result)) body = fsSearchText(result, ctx.args);
  else if (change !== null) body = change;
  else if (r.tool === 'shell.session' && isSessionResult(result)) body = `shell.session ${r.status === 'accepted_async' ? 'still running' : r.status}: ${shellSessionLines(result).join('\n')}`;
  // A result that carries its own rendering (a top-level string `text`, e.g. fs.list's tree) is read as that text.
  else if (typeof result['text'] === 'string') body = result['text'];
  else body = Buffer.byteLength(json()) <= room ? json() : summary();
  return `${boundedText(body, room, r.receipt_id)}\n${tail}`;
}

/** Text for a receipt that did not succeed: the error, its detail, the tool's own evidence. */
export function failureText(r: Receipt, error: ErrorBody, ctx: TextContext): string {
  // A message that goes on over several lines (a tool quoting the lines it found) keeps them
  // whole; the receipt then has a line of its own after them.
  const multiline = error.message.includes('\n');
  const lines = [multiline ? `${r.tool} ${r.status}: ${error.code}: ${error.message}\nreceipt ${r.receipt_id}` : `${r.tool} ${r.status}: ${error.code}: ${error.message} (receipt ${r.receipt_id})`];
  lines.push(...errorDetailLines(error, r.tool));
  if (isSessionResult(r.result)) lines.push(...shellSessionLines(r.result));
  else if (isShellResult(r.result)) lines.push(...shellExecLines(r.result));
  if (r.partial !== null) {
    const p = r.partial;
    lines.push(`partial effect: applied ${p.applied.join(', ') || 'nothing'}; not applied ${p.unapplied.join(', ') || 'nothing'}; restored ${p.restored.join(', ') || 'nothing'}`);
  }
  return boundedText(lines.join('\n'), ctx.maxBytes, r.receipt_id);
}
