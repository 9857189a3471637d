// The codes of the errors that stop Toolgate before it serves anything (a bad command line,
// configuration, grant or policy file), and the typed `data` of each. They are a family apart
// from ERROR_CODES: they never reach a receipt, an envelope or a tool, so a receipt's status
// switch (runtime/status.ts) need not know them. docs/cli.md's start-up error table is generated
// from this interface (`npx tsx scripts/error-table.ts`; test/protocol/error-table.test.ts fails
// when the page is out of date): each entry's doc comment is the "meaning", its type the "data".
// A state dir that cannot be used at start is a runtime error (`invalid_resource`,
// `store_unavailable`) for a library user opening a runtime; the CLI names it `state_unavailable`
// with the fix (src/cli/startup-faults.ts), one line like every other start-up error.
import type { Fault } from './envelope.js';

export const STARTUP_ERROR_CODES = ['usage', 'invalid_config', 'invalid_grant', 'invalid_policy', 'invalid_workspace', 'state_unavailable', 'invalid_token_file', 'port_unavailable', 'invalid_install'] as const;

export type StartupErrorCode = (typeof STARTUP_ERROR_CODES)[number];

/** A policy the Cedar engine refused; `policy_id` is null for a fault of the whole text (a parse error). */
export interface PolicyFault {
  readonly policy_id: string | null;
  readonly message: string;
}

/** Data of a code that carries none: only `{}` (or nothing) is accepted. */
type NoData = { readonly [key: string]: never };

export interface StartupErrorDataByCode {
  /** The command line is wrong: an unknown option or command, a missing or malformed argument. Printed with the command's help. */
  usage: NoData;
  /** `toolgate.config.json` (or `--config FILE`) is missing, unreadable, empty, not JSON, or fails its schema; `faults` name each JSON pointer. */
  invalid_config: { readonly file: string; readonly reason: 'no_such_file' | 'unreadable' | 'empty' | 'not_json' | 'schema'; readonly faults: readonly Fault[] };
  /** The grant file (`--grant`, `grant` in the configuration) is unreadable, not JSON, or fails schemas/grant.schema.json; `file` is absent for a grant value given by a library caller. */
  invalid_grant: { readonly file?: string; readonly reason: 'unreadable' | 'not_json' | 'schema'; readonly faults: readonly Fault[] };
  /** A Cedar policy file is unreadable, or the policy set does not parse or fails strict validation; `faults` name the failing policy ids. */
  invalid_policy: { readonly file?: string; readonly reason: 'unreadable' | 'invalid'; readonly faults: readonly PolicyFault[] };
  /** The workspace (`--workspace`, `workspace` in the configuration, or the current directory) does not exist, is not a directory, or cannot be opened. */
  invalid_workspace: { readonly workspace: string; readonly cause_code: string | null };
  /** The state dir cannot be created or written, or its database `toolgate.db` cannot be opened or is damaged; nothing in it was changed. `operation` is the store's (`create the state dir`, `open the database`). With the PostgreSQL store, `database` names the database (its URL without the password) that cannot be reached or used. */
  state_unavailable: { readonly state_dir: string; readonly operation: string; readonly cause_code: string | null; readonly database?: string };
  /** The bearer token file (`--token-file`, `serve.token_file` in the configuration) cannot be read. */
  invalid_token_file: { readonly file: string; readonly cause_code: string | null };
  /** `serve --http` cannot listen on the address: the port is in use (`EADDRINUSE`) or not allowed (`EACCES`), or the host is not an address of this machine. */
  port_unavailable: { readonly host: string; readonly port: number; readonly cause_code: string | null };
  /** Toolgate's own installed files (the package at `root`) cannot be read to compute the runtime digest receipts name it by (docs/release.md); reinstall the package, or pass `runtimeDigest` to createRuntime. */
  invalid_install: { readonly root: string; readonly cause_code: string | null };
}

/** The arguments after the message: data is optional exactly when every field of it is. */
export type StartupErrorDataArgs<C extends StartupErrorCode> =
  Record<string, never> extends StartupErrorDataByCode[C]
    ? [data?: StartupErrorDataByCode[C], options?: { cause?: unknown }]
    : [data: StartupErrorDataByCode[C], options?: { cause?: unknown }];

// Every code has a data type and nothing else does.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyCodeHasData: Exactly<keyof StartupErrorDataByCode, StartupErrorCode> = true;
void everyCodeHasData;
