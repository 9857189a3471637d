import type { CallStatus, ErrorCode } from '../protocol/index.js';

/** The receipt status a pipeline error ends a call with. */
export function statusOf(code: ErrorCode): CallStatus {
  switch (code) {
    case 'policy_denied':
    case 'approval_required':
    case 'repeated_denial':
    case 'budget_exhausted':
    case 'path_escape':
    case 'secret_path':
    case 'destination_refused':
    case 'connector_not_configured':
    case 'task_bound_exceeded':
    case 'ownership_conflict':
      return 'denied';
    case 'deadline_expired':
      return 'expired';
    case 'cancelled':
      return 'cancelled';
    case 'timed_out':
      return 'timed_out';
    case 'ambiguous_effect':
      return 'ambiguous';
    case 'invalid_request':
    case 'unsupported_protocol_version':
    case 'unknown_tool':
    case 'tool_version_unavailable':
    case 'tool_version_retired':
    case 'invalid_arguments':
    case 'invalid_resource':
    case 'not_found':
    case 'idempotency_conflict':
    case 'effect_in_progress':
    case 'reconciliation_required':
    case 'execution_failed':
    case 'isolation_unavailable':
    case 'unsupported':
    case 'stale_continuation':
    case 'invalid_continuation':
    case 'already_exists':
    case 'precondition_failed':
    case 'no_match':
    case 'ambiguous_match':
    case 'partial_failure':
    case 'undo_conflict':
    case 'limit_exceeded':
    case 'internal_error':
    case 'store_unavailable':
    case 'no_change':
    case 'overlapping_edits':
    case 'upstream_unavailable':
    case 'deadlock':
    case 'invalid_task_result':
    case 'task_state':
    case 'stale_page_state':
      return 'failed';
  }
}
