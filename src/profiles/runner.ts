// Runs an agent's tool call through a profile: check the arguments against the original's
// schema, map them onto ONE `tool-call.v1` envelope (whose `origin` names the profile, the
// original tool and the digest of the original arguments), hand it to the runtime — every stage
// runs, the receipt is committed — and render the receipt in the original's text format. A
// refusal is followed by one line with Toolgate's typed code (and the receipt, when there is one).
import { LRUCache } from 'lru-cache';
import { PROFILE_ORIGIN_KIND, PROTOCOL_VERSION, digestOf, type ErrorCode, type Receipt } from '../protocol/index.js';
import { BoundedFileMemory, BoundedNotes } from './file-memory.js';
import type { FileMemory, InputSchema, JsonObject, Profile, ProfileContext, ProfileTool, TaskNotes, ToolCall } from './profile.js';
import { argumentChecker, type ArgumentCheck } from './validate.js';

/** The runtime's `call`, as the profile sees it (the profiles layer imports no runtime). */
export type CallRuntime = (envelope: JsonObject, opts: { readonly signal?: AbortSignal }) => Promise<Receipt>;

export interface ProfileCallOptions {
  readonly task_id: string;
  readonly signal?: AbortSignal;
  readonly deadline?: string;
  readonly idempotency_key?: string;
}

/** What the model reads, and the receipt behind it (null when nothing could be called). */
export interface ProfileAnswer {
  readonly text: string;
  readonly isError: boolean;
  /** Toolgate's typed code of an error; null on success. */
  readonly code: ErrorCode | null;
  readonly receipt: Receipt | null;
}

/** A tool as a profile lists it (MCP `tools/list`). */
export interface ProfileToolListing {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: InputSchema;
}

export function typedCodeLine(code: ErrorCode, receipt: Receipt | null): string {
  return receipt === null ? `toolgate: ${code}` : `toolgate: ${code} (receipt ${receipt.receipt_id})`;
}

export class ProfileRunner {
  readonly profile: Profile;
  readonly #call: CallRuntime;
  readonly #root: string;
  readonly #checkers = new Map<string, (args: unknown) => ArgumentCheck>();
  /** What each task remembers (read sha256s); bounded like the runtime's other per-task state. */
  readonly #memories = new LRUCache<string, { files: FileMemory; notes: TaskNotes }>({ max: 1_000 });

  constructor(profile: Profile, host: { readonly call: CallRuntime; readonly root: string }) {
    this.profile = profile;
    this.#call = host.call;
    this.#root = host.root;
  }

  get tools(): ProfileToolListing[] {
    return this.profile.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  }

  #tool(name: string): ProfileTool | undefined {
    return this.profile.tools.find((t) => t.name === name);
  }

  #check(tool: ProfileTool, args: unknown): ArgumentCheck {
    let checker = this.#checkers.get(tool.name);
    if (checker === undefined) this.#checkers.set(tool.name, (checker = argumentChecker(tool.inputSchema)));
    return checker(args);
  }

  #context(task: string): ProfileContext {
    let memory = this.#memories.get(task);
    if (memory === undefined) this.#memories.set(task, (memory = { files: new BoundedFileMemory(), notes: new BoundedNotes() }));
    return { root: this.#root, ...memory };
  }

  #refused(message: string, code: ErrorCode): ProfileAnswer {
    return { text: `${this.profile.wrapError(message)}\n${typedCodeLine(code, null)}`, isError: true, code, receipt: null };
  }

  async call(name: string, args: unknown, opts: ProfileCallOptions): Promise<ProfileAnswer> {
    const tool = this.#tool(name);
    if (tool === undefined) return this.#refused(this.profile.unknownTool(name), 'unknown_tool');
    const checked = this.#check(tool, args ?? {});
    if (!checked.ok) {
      const problems = checked.faults.map((f) => (f.pointer === '' ? f.message : `The parameter \`${f.pointer.slice(1)}\`: ${f.message}`));
      return this.#refused(this.profile.invalidArguments(tool.name, problems), 'invalid_arguments');
    }
    const ctx = this.#context(opts.task_id);
    // The digest is of the arguments as the agent sent them (before the schema's defaults).
    const origin = { kind: PROFILE_ORIGIN_KIND, profile: this.profile.name, tool: tool.name, arguments_digest: digestOf(args ?? {}) };
    const envelopeOf = (call: ToolCall, idempotencyKey: string | undefined): JsonObject => ({
      protocol_version: PROTOCOL_VERSION,
      task_id: opts.task_id,
      tool: call.tool,
      arguments: call.arguments,
      origin,
      ...(opts.deadline === undefined ? {} : { deadline: opts.deadline }),
      ...(idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey }),
    });
    const callOpts = opts.signal === undefined ? {} : { signal: opts.signal };
    // Reads first, when the mapping needs them; then the one call the original call becomes.
    const prepared: Receipt[] = [];
    for (const read of tool.prepare?.(checked.args, ctx) ?? []) prepared.push(await this.#call(envelopeOf(read, undefined), callOpts));
    const mapping = tool.map(checked.args, ctx, prepared);
    if ('refuse' in mapping) return this.#refused(mapping.refuse.text, mapping.refuse.code);
    const receipt = await this.#call(envelopeOf(mapping.call, opts.idempotency_key), callOpts);
    const next = tool.followUp?.(receipt, checked.args, ctx) ?? null;
    // The follow-up is a read: it has no effect to deduplicate, so it carries no idempotency key.
    const followed = next === null ? undefined : await this.#call(envelopeOf(next, undefined), callOpts);
    if (receipt.status === 'succeeded') tool.observe?.(receipt, checked.args, ctx, followed);
    const shown = tool.render(receipt, checked.args, ctx, followed);
    if (!shown.isError) return { text: shown.text, isError: false, code: null, receipt };
    const code = shown.code ?? receipt.error?.code ?? 'internal_error';
    return { text: `${shown.text}\n${typedCodeLine(code, receipt)}`, isError: true, code, receipt };
  }
}
