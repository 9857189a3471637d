// The one enum of error codes. Every failure anywhere in Toolgate carries one of these in
// `error.code`; nothing branches on message text. docs/protocol.md documents each.
export const ERROR_CODES = [
  // parse
  'invalid_request',
  'unsupported_protocol_version',
  // resolve
  'unknown_tool',
  'tool_version_unavailable',
  'tool_version_retired',
  // validate
  'invalid_arguments',
  // normalize
  'invalid_resource',
  'path_escape',
  'not_found',
  'secret_path',
  // authorize
  'policy_denied',
  'approval_required',
  'repeated_denial',
  // admit
  'deadline_expired',
  'budget_exhausted',
  // claim
  'idempotency_conflict',
  'effect_in_progress',
  'reconciliation_required',
  // execute: how a call ended when it did not succeed
  'cancelled',
  'timed_out',
  'ambiguous_effect',
  'execution_failed',
  'isolation_unavailable',
  'unsupported',
  // continuation tokens
  'stale_continuation',
  'invalid_continuation',
  // domain outcomes of mutating tools
  'already_exists',
  'precondition_failed',
  'no_match',
  'ambiguous_match',
  'partial_failure',
  'undo_conflict',
  'limit_exceeded',
  // the runtime itself
  'internal_error',
  // the state dir cannot be written or read (full, read-only, damaged)
  'store_unavailable',
  // an edit that would leave the file as it is (fs.patch): refused rather than rewritten
  'no_change',
  // two fs.patch edits of one file touch the same text of the original
  'overlapping_edits',
  // a network destination (URL, resolved address) the grant does not name
  'destination_refused',
  // a network write (http.request POST/PUT/PATCH/DELETE) to a destination no configuration declares
  'connector_not_configured',
  // an upstream MCP server (the gateway) could not be started or reached; nothing was sent to it
  'upstream_unavailable',
  // subtasks (src/tasks): a wait that would close a cycle, a bound of the task tree, owned paths
  // that overlap, a result that does not match its schema, a task in the wrong state
  'deadlock',
  'task_bound_exceeded',
  'ownership_conflict',
  'invalid_task_result',
  'task_state',
  // browser tools: the page changed since the snapshot an effect was planned on
  'stale_page_state',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}
