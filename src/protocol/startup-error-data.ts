// The codes of the errors that stop Toolgate before it serves anything (a bad command line,
// configuration, grant or policy file), and the typed `data` of each. They are a family apart
// from ERROR_CODES: they never reach a receipt, an envelope or a tool, so a receipt's status
// switch (runtime/status.ts) need not know them. docs/cli.md's start-up error table is generated
// from this interface (`npx tsx scripts/error-table.ts`; test/protocol/error-table.test.ts fails
// when the page is out of date): each entry's doc comment is the "meaning", its type the "data".
// A state dir that cannot be used at start stays a runtime error (`invalid_resource`,
// `store_unavailable`): a library user opening a runtime meets it the same way.
import type { Fault } from './envelope.js';

export const STARTUP_ERROR_CODES = ['usage', 'invalid_config', 'invalid_grant', 'invalid_policy'] as const;

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
