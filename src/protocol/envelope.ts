import { z } from 'zod';
import { ToolgateError } from './error.js';
import { ID_PATTERN, type AttemptId, type LogicalEffectId, type TaskId } from './ids.js';
import { jsonPointer } from './pointer.js';
import { echoString, echoValue, MAX_FAULTS } from './echo.js';
import { profileOriginSchema, type ProfileOrigin } from './origin.js';

export const PROTOCOL_VERSION = 'tool-call.v1';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [PROTOCOL_VERSION];

/** Fields only the runtime may set; a caller (the model) that supplies one is refused. */
export const RUNTIME_OWNED_FIELDS: readonly string[] = [
  'capability_id',
  'capability',
  'grant',
  'principal',
  'tenant',
  'policy_version',
];

const id = z.string().regex(ID_PATTERN, 'identifier: 1-200 of A-Z a-z 0-9 . _ : @ -');

const envelopeSchema = z.strictObject({
  protocol_version: z.literal(PROTOCOL_VERSION),
  task_id: id,
  attempt_id: id.optional(),
  logical_effect_id: id.optional(),
  tool: z.string().max(200).regex(/^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$/, 'tool name: family.verb'),
  tool_version: z.string().max(64).regex(/^\d+\.\d+\.\d+$/, 'semantic version MAJOR.MINOR.PATCH').optional(),
  arguments: z.record(z.string(), z.unknown()),
  idempotency_key: id.optional(),
  deadline: z.iso.datetime({ offset: true }).optional(),
  origin: profileOriginSchema.optional(),
});

/** A parsed `tool-call.v1` envelope. */
export interface Envelope {
  readonly protocol_version: typeof PROTOCOL_VERSION;
  readonly task_id: TaskId;
  readonly attempt_id?: AttemptId;
  readonly logical_effect_id?: LogicalEffectId;
  readonly tool: string;
  readonly tool_version?: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly idempotency_key?: string;
  readonly deadline?: string;
  /** Set by a compatibility profile: the agent's tool and the digest of its arguments (origin.ts). */
  readonly origin?: ProfileOrigin;
}

export interface Fault {
  readonly pointer: string;
  readonly message: string;
}

/**
 * Maps zod issues to JSON pointers; used for envelopes and for tool arguments alike. A fault
 * echoes the caller's keys, so each pointer and message is bounded, and at most MAX_FAULTS are
 * listed (the last one counts the rest).
 */
export function faultsOf(error: z.ZodError): Fault[] {
  const faults: Fault[] = [];
  let more = 0;
  const add = (path: readonly PropertyKey[], message: string): void => {
    if (faults.length < MAX_FAULTS) faults.push({ pointer: echoString(jsonPointer(path)), message: echoString(message, 1024) });
    else more++;
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        if (faults.length >= MAX_FAULTS) {
          more += issue.keys.length - issue.keys.indexOf(key);
          break;
        }
        add([...issue.path, key], 'unknown field');
      }
    } else add(issue.path, issue.message);
  }
  if (more > 0) faults.push({ pointer: '', message: `${more} more fault(s) not listed` });
  return faults;
}

/** The parse stage: strict, typed, and refusing fields that only the runtime may set. */
export function parseEnvelope(input: unknown): Envelope {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ToolgateError('invalid_request', 'envelope must be a JSON object', { faults: [{ pointer: '', message: 'not an object' }] });
  }
  const record = input as Record<string, unknown>;
  const owned = Object.keys(record).filter((k) => RUNTIME_OWNED_FIELDS.includes(k));
  if (owned.length > 0) {
    throw new ToolgateError('invalid_request', `runtime-owned field(s) supplied by the caller: ${owned.join(', ')}`, {
      reason: 'runtime_owned_field',
      faults: owned.map((k) => ({ pointer: jsonPointer([k]), message: 'set by the runtime, never by the caller' })),
    });
  }
  const version = record['protocol_version'];
  if (version === undefined) {
    throw new ToolgateError('invalid_request', 'protocol_version is required', {
      faults: [{ pointer: '/protocol_version', message: 'required' }],
    });
  }
  if (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new ToolgateError('unsupported_protocol_version', `unsupported protocol_version ${echoValue(version)}`, {
      received: typeof version === 'string' ? echoString(version) : null,
      supported: SUPPORTED_PROTOCOL_VERSIONS,
    });
  }
  const parsed = envelopeSchema.safeParse(record);
  if (!parsed.success) {
    const faults = faultsOf(parsed.error);
    throw new ToolgateError('invalid_request', `invalid envelope: ${faults.map((f) => `${f.pointer || '/'} ${f.message}`).join('; ')}`, { faults });
  }
  return parsed.data as Envelope;
}
