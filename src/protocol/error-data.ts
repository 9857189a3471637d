// The typed `data` of each error code, and its documentation: docs/protocol.md's error table is
// generated from this interface (`npx tsx scripts/error-table.ts`; test/protocol/error-table.test.ts
// fails when the page is out of date). Each entry's doc comment is the table's "meaning", its
// @stage and @status tags the table's columns, its type the "data" column. The shapes are what
// the code base passes today; a union lists the distinct situations a code is raised in.
import type { ErrorCode } from './error-codes.js';

/** A JSON pointer into the envelope or the arguments, and what is wrong there. */
type Fault = { readonly pointer: string; readonly message: string; readonly line?: number };

/** Data of a code that carries none: only `{}` (or nothing) is accepted. */
type NoData = { readonly [key: string]: never };

/** What authorization decided, as it refused (policy/decision.ts). */
type DecisionData = {
  readonly reasons: readonly string[];
  readonly determining: readonly string[];
  readonly policy_version: string;
  readonly grant_digest: string;
  readonly action_digest: string;
  readonly approval_id?: string;
  /** Decided mid-call for a redirect (http.request): the location that was not followed. */
  readonly redirect_url?: string;
};

/** A refusal of a path by what it is or where it is. */
type PathData = { readonly path: string };

export interface ErrorDataByCode {
  /**
   * The envelope is malformed, has an unknown field, or sets a runtime-owned field (`reason: "runtime_owned_field"`).
   * @stage parse
   * @status failed
   */
  invalid_request: { readonly faults: readonly Fault[]; readonly reason?: 'runtime_owned_field' };
  /**
   * `protocol_version` is not one this runtime speaks.
   * @stage parse
   * @status failed
   */
  unsupported_protocol_version: { readonly received: string | null; readonly supported: readonly string[] };
  /**
   * No such tool in the task's pinned registry revision.
   * @stage resolve
   * @status failed
   */
  unknown_tool: { readonly tool: string; readonly registry_revision: string; readonly known: readonly string[] };
  /**
   * The version is not pinned, retired, past its migration window, or no longer implemented.
   * @stage resolve
   * @status failed
   */
  tool_version_unavailable: {
    readonly tool: string;
    readonly version: string | null;
    readonly reason: string;
    readonly registry_revision: string;
    readonly available: readonly string[];
  };
  /**
   * The version is retired (by the tool, or by `rollout` in toolgate.config.json): a task that pinned its registry after the retirement may not call it (`retired_before_pin`), and a task pinned before may call it only until the deprecation window ends (`window_ended`). `retired_at` is null when the tool's code retired it; `window_ends` ends the window of tasks pinned before; `replacement` is the version to move to (docs/registry.md#rollout).
   * @stage resolve
   * @status failed
   */
  tool_version_retired: {
    readonly tool: string;
    readonly version: string;
    readonly reason: 'retired_before_pin' | 'window_ended';
    readonly retired_at: string | null;
    readonly window_ends: string;
    readonly replacement: string | null;
    readonly registry_revision: string;
    readonly available: readonly string[];
  };
  /**
   * The arguments do not match the tool's request schema (unknown fields included), or a value in them is unusable (a regex that does not compile, a secret too short to redact).
   * @stage validate
   * @status failed
   */
  invalid_arguments: { readonly faults: readonly Fault[]; readonly tool?: string; readonly engine?: 'javascript' | 'ripgrep' | 'ast-grep' };
  /**
   * A path that is empty, too long, holds NUL, is a directory or special file where a file is needed, or keeps changing under resolution; or another named object that cannot be used as asked.
   * @stage normalize
   * @status failed
   */
  invalid_resource:
    | {
        readonly path: string | null;
        readonly kind?: string | null;
        readonly reason?: 'special_file' | 'toolgate_temp_file' | 'directory_not_empty';
        readonly entries?: number;
      }
    | { readonly from: string; readonly to: string; readonly reason?: 'same_file' }
    | { readonly digest: string }
    | { readonly receipt_id: string; readonly tool?: string; readonly status?: string }
    | { readonly task_id: string; readonly effect_key: string; readonly state: string }
    | { readonly state_dir: string; readonly workspace: string }
    | {
        readonly kind: 'ref';
        readonly ref: string;
        readonly reason:
          | 'empty'
          | 'not_ascii'
          | 'control_character'
          | 'forbidden_character'
          | 'wildcard'
          | 'double_dot'
          | 'at_brace'
          | 'bad_component'
          | 'bad_slash'
          | 'trailing_dot'
          | 'symbolic'
          | 'too_short'
          | 'too_long';
      }
    | { readonly kind: 'revision'; readonly revision: string; readonly reason: 'not_a_commit' | 'no_repository' }
    | { readonly option: 'grant' | 'policy'; readonly file: string; readonly workspace: string; readonly reason: 'inside_workspace' }
    | { readonly option: 'sandbox.toolchains'; readonly path: string; readonly credential: string | null; readonly reason: 'exposes_credentials' | 'not_absolute' };
  /**
   * The path (lexically, or through a link) leaves the workspace, or a link was met at the point of effect.
   * @stage normalize / execute
   * @status denied
   */
  path_escape: { readonly path: string; readonly link?: string; readonly target?: string };
  /**
   * The path (or receipt, approval, artifact, effect) does not exist; `missing` or `at` names where the walk stopped.
   * @stage normalize / execute
   * @status failed
   */
  not_found:
    | { readonly path: string; readonly missing?: string; readonly at?: string }
    | { readonly receipt_id: string }
    | { readonly approval_id: string }
    | { readonly digest: string }
    | { readonly task_id: string; readonly effect_key: string };
  /**
   * The path is classified secret (docs/paths.md), or is a hard link to a secret file.
   * @stage normalize
   * @status denied
   */
  secret_path: { readonly path: string; readonly reason?: 'hard_link_to_secret'; readonly secret?: string };
  /**
   * The policy refused the action (the tool never ran), or a write to a protected, secret or Toolgate-temporary path.
   * @stage authorize
   * @status denied
   */
  policy_denied: DecisionData | (PathData & { readonly reason: 'protected_path' | 'secret_path' | 'toolgate_temp_file' });
  /**
   * The policy asks for an approval first.
   * @stage authorize
   * @status denied
   */
  approval_required: DecisionData;
  /**
   * The same action was denied too often in this task.
   * @stage authorize
   * @status denied
   */
  repeated_denial: DecisionData;
  /**
   * The deadline passed while queued (`phase: "queue"`) or before admission; no effect record beyond `released`.
   * @stage admit
   * @status expired
   */
  deadline_expired: { readonly phase: 'queue' | 'admission'; readonly deadline?: string };
  /**
   * A budget of the grant is spent.
   * @stage admit
   * @status denied
   */
  budget_exhausted: {
    readonly dimension: string;
    readonly limit: number;
    readonly used: number;
    readonly reserved: number;
    readonly requested: number;
    readonly grant_digest: string;
  };
  /**
   * The key was used with other arguments.
   * @stage claim
   * @status failed
   */
  idempotency_conflict: { readonly key: string; readonly args_digest: string; readonly recorded_args_digest: string; readonly recorded_tool: string };
  /**
   * The same logical effect is running now: in another runtime (a shared store), or in this one and the call stopped waiting for it (its deadline or its client's cancel; docs/protocol.md#long-calls).
   * @stage claim
   * @status failed
   */
  effect_in_progress:
    | { readonly key: string; readonly state: string; readonly attempt_id: string | null }
    | { readonly task_id: string; readonly effect_key: string; readonly state: string; readonly attempt_id: string | null };
  /**
   * A previous attempt is ambiguous; run `toolgate reconcile`.
   * @stage claim
   * @status failed
   */
  reconciliation_required: {
    readonly key: string;
    readonly state: 'ambiguous';
    readonly attempt_id: string | null;
    readonly receipt_id: string | null;
    readonly reason?: string | null;
  };
  /**
   * The client or the task cancelled the call; `sent` says whether the effect may have started.
   * @stage any
   * @status cancelled
   */
  cancelled:
    | { readonly by: 'client' | 'task'; readonly sent: boolean; readonly tool_stopped: boolean }
    | { readonly by: 'task'; readonly phase: 'admission' }
    | { readonly phase: 'queue' }
    | { readonly reason: string; readonly process_left: boolean };
  /**
   * A timeout passed: before anything was sent (`retryable: true`), or a tool's own limit after it started.
   * @stage execute
   * @status timed_out
   */
  timed_out:
    | { readonly reason: string; readonly phase: 'before_send'; readonly retryable: true; readonly tool_stopped: boolean }
    | { readonly reason: string; readonly phase: 'after_send'; readonly process_left: boolean }
    | { readonly timeout_ms: number };
  /**
   * A timeout or failure after the effect may have started.
   * @stage execute
   * @status ambiguous
   */
  ambiguous_effect: { readonly reason: string; readonly tool_stopped: boolean } | { readonly cause: { readonly code: ErrorCode; readonly message: string } } | NoData;
  /**
   * The tool failed before sending anything (or a reconcile found the effect did not happen).
   * @stage execute
   * @status failed
   */
  execution_failed:
    | { readonly path: string; readonly errno: string | null }
    | { readonly engine: 'ripgrep' }
    | { readonly reason: string; readonly exit_code: number | null }
    | { readonly reason: string; readonly signal: string | null }
    | { readonly reason: string; readonly notes: readonly string[] }
    | { readonly settled: string; readonly by: string; readonly reason?: string; readonly previous_receipt_id: string | null; readonly sent_at: string }
    | { readonly reason: 'connect_failed' | 'no_answer'; readonly url: string; readonly address: string; readonly errno: string | null }
    | {
        readonly reason: 'remote_unreachable' | 'not_fast_forward' | 'remote_ahead' | 'rejected' | 'fetch_failed';
        readonly url: string;
        readonly address: string;
        readonly ref: string | null;
        readonly exit_code: number | null;
        readonly answer?: string;
      }
    | NoData;
  /**
   * The sandbox cannot start and weaker isolation is not allowed.
   * @stage execute
   * @status failed
   */
  isolation_unavailable: { readonly isolation: 'none'; readonly missing?: 'bwrap'; readonly package?: string };
  /**
   * A requested feature does not exist here (e.g. a pty, a rename in a unified diff, a binary file).
   * @stage execute
   * @status failed
   */
  unsupported:
    | { readonly argument: 'pty' | 'multiline' | 'network' }
    | { readonly line: number; readonly mode?: string; readonly from?: string; readonly to?: string }
    | (PathData & { readonly reason?: 'binary' | 'protected_link' })
    | NoData;
  /**
   * The continuation's snapshot changed (file digest, workspace revision).
   * @stage execute
   * @status failed
   */
  stale_continuation:
    | { readonly path: string; readonly expected_sha256: unknown; readonly sha256: string }
    | { readonly reason: string; readonly expected?: unknown; readonly revision?: string };
  /**
   * The token is tampered, malformed, or of another tool, task or path.
   * @stage execute
   * @status failed
   */
  invalid_continuation: { readonly reason: string } | PathData;
  /**
   * `create` of an existing file, or a file someone else created meanwhile.
   * @stage execute
   * @status failed
   */
  already_exists: PathData;
  /**
   * An `expected_sha256` no longer matches, the object changed between authorization and use (`reason`), an approval can no longer be decided (or the action shown to the approver, `shown_digest`, is not the one it binds), or an fs.patch line edit is stale or unbound (`stale_lines`, `unbound_line_edit`, `line_out_of_range`: `current` is the lines there now).
   * @stage execute
   * @status failed
   */
  precondition_failed:
    | (PathData & {
        readonly reason: 'identity_changed' | 'parent_changed' | 'changed_since_check' | 'path_changing' | 'stale_sha256';
        readonly expected_sha256?: string;
        readonly actual_sha256?: string;
        readonly errno?: string;
      })
    | { readonly approval_id: string; readonly status: string; readonly expires_at: string; readonly action_digest?: string; readonly shown_digest?: string }
    | (PathData & {
        readonly reason: 'stale_lines' | 'unbound_line_edit' | 'line_out_of_range';
        readonly edit: number;
        readonly start_line: number;
        readonly end_line: number;
        readonly line_count: number;
        readonly expected?: string;
        readonly current: string;
        readonly candidates?: readonly unknown[];
      });
  /**
   * An edit's `old` text (or a hunk) is not in the file; `candidates` are the closest places.
   * @stage execute
   * @status failed
   */
  no_match: PathData & { readonly candidates: readonly unknown[]; readonly edit?: number; readonly hunk?: number; readonly stated_line?: number };
  /**
   * An edit's `old` text is there more than once.
   * @stage execute
   * @status failed
   */
  ambiguous_match: PathData & { readonly edit: number; readonly lines: readonly number[]; readonly overlapping: boolean };
  /**
   * Part of a multi-part effect failed; see `partial`. Also carries the failed part's own data.
   * @stage execute
   * @status failed
   */
  partial_failure: {
    readonly [key: string]: unknown;
    readonly failed: string | null;
    readonly cause_code: ErrorCode;
    readonly applied: readonly string[];
    readonly restored: readonly string[];
    readonly revision: string;
  };
  /**
   * Files changed since the receipt being undone.
   * @stage execute
   * @status failed
   */
  undo_conflict: { readonly changed: readonly string[] };
  /**
   * A declared bound (size, count) was passed.
   * @stage execute
   * @status failed
   */
  limit_exceeded:
    | { readonly limit: string; readonly max: number }
    | { readonly limit: string; readonly value: number; readonly reason?: string; readonly entries?: number; readonly mounts?: number }
    | { readonly limit: number; readonly size: number; readonly path?: string }
    | { readonly limit: number; readonly files: number }
    | { readonly entries: number; readonly bytes: number; readonly max_entries: number; readonly max_bytes: number }
    | { readonly path: string; readonly size?: number; readonly total?: number; readonly limit: number };
  /**
   * A defect in Toolgate; the receipt is still committed.
   * @stage any
   * @status failed
   */
  internal_error:
    | { readonly key: string }
    | { readonly artifact: string }
    | { readonly digest: string; readonly actual: string }
    | { readonly errno: string | null }
    | NoData;
  /**
   * The state dir cannot be written or read (full, read-only, I/O error, damaged); `cause_code` is e.g. `SQLITE_FULL`, `ENOSPC`. `call()` rejects with it when no receipt can be committed; opening a runtime on such a dir throws it. With the PostgreSQL store: the database cannot be reached or refuses (connection lost, server down, disk full); `database` names it (its URL without the password) and `cause_code` is its SQLSTATE (`57P01`, `3D000`) or the connection's errno (`ECONNREFUSED`).
   * @stage any
   * @status failed
   */
  store_unavailable: { readonly operation: string; readonly cause_code: string | null; readonly state_dir: string; readonly database?: string };
  /**
   * An fs.patch edit whose `old` equals its `new`, or a file the patch would leave byte-for-byte as it is; nothing is written.
   * @stage execute
   * @status failed
   */
  no_change: PathData & { readonly edit?: number };
  /**
   * Two fs.patch edits of one file touch the same text of the original (edits are placed in the original, so their order would decide the result); nothing is written.
   * @stage execute
   * @status failed
   */
  overlapping_edits: PathData & { readonly edits: readonly [number, number]; readonly lines: readonly [readonly [number, number], readonly [number, number]] };
  /**
   * A network destination is refused before anything is sent: the URL is malformed, has a scheme the caller does not take, carries credentials or an IPv6 zone id; its host is not in the grant or is a cloud metadata name; it does not resolve; or one of its addresses is of a class (loopback, private, link-local, CGNAT, multicast, metadata, …) the grant does not name (docs/network.md).
   * @stage execute
   * @status denied
   */
  destination_refused: {
    readonly url: string;
    readonly host: string | null;
    readonly port: number | null;
    readonly address: string | null;
    readonly class: string | null;
    readonly reason: 'invalid_url' | 'scheme' | 'userinfo' | 'zone_id' | 'host_not_granted' | 'metadata_name' | 'unresolved' | 'address_class';
  };
  /**
   * A write through a connector (http.request POST, PUT, PATCH or DELETE) to a destination whose configuration (`connectors.http.destinations` in toolgate.config.json) does not declare that method's effect class; nothing is sent (docs/network.md#httprequest); or a git.push/git.fetch naming a remote `connectors.git.remotes` does not name (`unknown_remote`), or asking for a force push the remote's entry does not allow (`force_not_allowed`, docs/network.md#gitpush--gitfetch).
   * @stage normalize
   * @status denied
   */
  connector_not_configured: { readonly tool: string; readonly url: string; readonly host: string; readonly method: string; readonly reason: 'no_destination' | 'method_not_declared' | 'unknown_remote' | 'force_not_allowed' };
  /**
   * An upstream MCP server behind the gateway (`upstreams` in toolgate.config.json) could not be started, connected or listed, or stopped before the call was sent to it; nothing was sent (docs/gateway.md). A call the upstream died after receiving is `ambiguous_effect` instead.
   * @stage execute
   * @status failed
   */
  upstream_unavailable: { readonly upstream: string; readonly tool: string | null; readonly reason: 'start_failed' | 'crashed' | 'closed' | 'tool_gone'; readonly restarts: number; readonly message: string };
  /**
   * A task.wait that would close a cycle in the wait-for graph (`cycle`: the tasks in order, the waiter first and last); refused at once, nothing waits (docs/tasks.md).
   * @stage execute
   * @status failed
   */
  deadlock: { readonly waiter: string; readonly cycle: readonly string[] };
  /**
   * A task.spawn past a bound of the task tree (`tasks` in toolgate.config.json): its depth, its parent's children (`fanout`), or the tree's subtasks (`descendants`); nothing was created (docs/tasks.md).
   * @stage execute
   * @status denied
   */
  task_bound_exceeded: { readonly bound: 'depth' | 'fanout' | 'descendants'; readonly limit: number; readonly current: number };
  /**
   * Owned paths that overlap a live subtask's (`held_by`), that lie outside the spawning subtask's own (`outside_owner`), or a subtask's changes outside the paths it owns (`changed_outside`) (docs/tasks.md).
   * @stage execute
   * @status denied
   */
  ownership_conflict: { readonly reason: 'held_by' | 'outside_owner' | 'changed_outside'; readonly paths: readonly string[]; readonly task_id: string | null };
  /**
   * A task.complete result that does not match the subtask's output schema (each fault a JSON pointer into the result), or a schema given to task.spawn that is not a usable JSON Schema; the subtask may try again (docs/tasks.md).
   * @stage execute
   * @status failed
   */
  invalid_task_result: { readonly reason: 'schema_mismatch' | 'invalid_schema'; readonly faults: readonly Fault[] };
  /**
   * The subtask is not in a state that allows the call (a result of a running task, a completion of a cancelled one), is not in the caller's tree, or the caller is not its ancestor (docs/tasks.md).
   * @stage execute
   * @status failed
   */
  task_state: { readonly task_id: string; readonly state: string; readonly reason: 'not_terminal' | 'not_running' | 'not_completed' | 'not_in_tree' | 'not_ancestor' | 'no_task_store' };
  /**
   * A browser effect (click, type, select, upload, download) planned on a snapshot that no longer matches the live page: the tab or frame is gone or replaced, the URL or navigation generation moved, the element named by the locator is not the one the snapshot saw, or the locator now matches no element or several; nothing was done (docs/browser.md).
   * @stage execute
   * @status failed
   */
  stale_page_state: {
    readonly reason: 'unknown_snapshot' | 'not_in_snapshot' | 'tab' | 'frame' | 'url' | 'generation' | 'missing' | 'ambiguous' | 'element_identity';
    readonly snapshot_id: string;
    readonly tab: string | null;
    readonly locator: string | null;
    readonly expected: string | number | null;
    readonly actual: string | number | null;
  };
}

/** Plain JSON data carried by an error whose code is not known statically (a receipt read back, a re-wrapped body). */
export type ErrorData = { readonly [key: string]: unknown };

/**
 * The data a `code` takes. When the code is only known at run time (the whole `ErrorCode` union,
 * e.g. re-wrapping a stored body), the data cannot be checked and is plain JSON.
 */
export type ErrorDataOf<C extends ErrorCode> = ErrorCode extends C ? ErrorData : ErrorDataByCode[C];

/** The arguments after the message: data is optional exactly when every field of it is. */
export type ErrorDataArgs<C extends ErrorCode, Options> =
  Record<string, never> extends ErrorDataOf<C> ? [data?: ErrorDataOf<C>, options?: Options] : [data: ErrorDataOf<C>, options?: Options];

// Every code has a data type and nothing else does: adding a code to ERROR_CODES fails here until it is described.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyCodeHasData: Exactly<keyof ErrorDataByCode, ErrorCode> = true;
void everyCodeHasData;
