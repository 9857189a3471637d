// What a compatibility profile is (docs/profiles.md): a list of an agent's own tools, each with
// the original's name, input schema and description, a mapping of its arguments onto ONE
// Toolgate call, and a rendering of that call's receipt in the original's text format.
import type { ErrorCode, Receipt } from '../protocol/index.js';

export type JsonObject = Readonly<Record<string, unknown>>;

/** The original's input schema as `tools/list` shows it (the top level of toolsurf's file, `x-toolsurf` left out). */
export type InputSchema = JsonObject & { readonly type: 'object' };

/** The one Toolgate call an original call becomes. */
export interface ToolCall {
  readonly tool: string;
  readonly arguments: JsonObject;
}

/**
 * A refusal before any call, for what has no Toolgate tool to go to (an option the profile
 * cannot honour): the original's wording where one exists, and the typed code.
 */
export interface Refusal {
  readonly code: ErrorCode;
  readonly text: string;
}

export type Mapping = { readonly call: ToolCall } | { readonly refuse: Refusal };

/** The text a model reads, as the original would give it. `code` overrides the receipt's for an error of a succeeded call. */
export interface ProfileText {
  readonly text: string;
  readonly isError: boolean;
  readonly code?: ErrorCode;
}

/** What a task remembers between calls: the sha256 of each file as the agent last read or wrote it. */
export interface FileMemory {
  get(path: string): string | undefined;
  set(path: string, sha256: string): void;
}

/** Anything else a profile keeps per task (an editor's undo history, what a view showed); bounded. */
export interface TaskNotes {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export interface ProfileContext {
  /** The workspace root, absolute: the agent's absolute paths are mapped beneath it. */
  readonly root: string;
  readonly files: FileMemory;
  readonly notes: TaskNotes;
}

export interface ProfileTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: InputSchema;
  /**
   * Reads the mapping needs first (the files a patch updates, to place its chunks as the
   * original does): each its own envelope through the whole pipeline, with the same origin.
   */
  prepare?(args: JsonObject, ctx: ProfileContext): readonly ToolCall[];
  /** Arguments already valid against `inputSchema`; `prepared`: the receipts of `prepare`'s reads, in order. */
  map(args: JsonObject, ctx: ProfileContext, prepared?: readonly Receipt[]): Mapping;
  /**
   * A second call the original's answer needs, decided from the first receipt: the lines around
   * an edit as the file now is (fs.read), or the listing of what turned out to be a directory.
   * It is its own envelope through the whole pipeline, with the same origin; null for none.
   */
  followUp?(receipt: Receipt, args: JsonObject, ctx: ProfileContext): ToolCall | null;
  /** `followed`: the receipt of the follow-up call, when there was one. */
  render(receipt: Receipt, args: JsonObject, ctx: ProfileContext, followed?: Receipt): ProfileText;
  /** What a succeeded call teaches the task (e.g. the sha256 a Read saw, for a later Write). */
  observe?(receipt: Receipt, args: JsonObject, ctx: ProfileContext, followed?: Receipt): void;
}

export interface Profile {
  readonly name: string;
  readonly tools: readonly ProfileTool[];
  /** How the original wraps an error's text (Claude Code: `<tool_use_error>…</tool_use_error>`). */
  wrapError(message: string): string;
  /** The original's wording for arguments that do not fit its schema. */
  invalidArguments(tool: string, problems: readonly string[]): string;
  /** The original's wording for a tool it does not have. */
  unknownTool(name: string): string;
}
