// Which half of a tools/call result carries the result: the text a model reads, the
// structuredContent a program reads, or both. Sending both doubles every page on the wire (an
// fs.read of 4 KiB sent 4.7 KB of numbered text and 4.4 KB of structured JSON), and the clients
// that drive models pick one: Claude Code (2.1.x) and Codex hand the model
// JSON.stringify(structuredContent) whenever it is present and drop the text (anthropics/
// claude-code#79944, openai/codex#38287), while others forward only the text (Open WebUI,
// opencode before #32074). So `auto` serves `text` to clients known to do the former (the model
// then reads the rendering docs/mcp.md "Text content" describes, and tools/list carries no
// outputSchema, which would oblige structuredContent), and `both` to every other client.
import type { McpCallResult } from './call-result.js';
import type { McpToolDefinition } from './tool-listing.js';

export const RESULT_FORMS = ['auto', 'both', 'text', 'structured'] as const;
export type ResultForm = (typeof RESULT_FORMS)[number];

/** clientInfo.name of clients that give the model structuredContent instead of the text when both are sent. */
const STRUCTURED_TO_MODEL = new Set(['claude-code', 'codex-mcp-client', 'opencode']);

/** A result as sent: without structuredContent in the `text` form. */
export interface FormedResult {
  [key: string]: unknown;
  readonly content: McpCallResult['content'];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: true;
  readonly _meta: Record<string, unknown>;
}

/** The form for a connected client (`auto` resolved by its clientInfo.name; unknown: `both`). */
export function formFor(form: ResultForm, clientName: string | undefined): Exclude<ResultForm, 'auto'> {
  if (form !== 'auto') return form;
  return clientName !== undefined && STRUCTURED_TO_MODEL.has(clientName) ? 'text' : 'both';
}

/** tools/list for a form: without outputSchema under `text` (a declared one obliges structuredContent). */
export function toolsFor(form: Exclude<ResultForm, 'auto'>, tools: readonly McpToolDefinition[]): McpToolDefinition[] {
  if (form !== 'text') return [...tools];
  return tools.map(({ outputSchema: _omitted, ...tool }) => tool);
}

/**
 * A result in a form. `text`: the text and `_meta` only. `structured` is made by callResultOf
 * itself (`successText: 'line'`: a success's text is one line naming the receipt, the rendering
 * is skipped; a failure keeps its text, which is short and says what to do).
 */
export function resultFor(form: Exclude<ResultForm, 'auto'>, r: McpCallResult): FormedResult {
  if (form !== 'text') return r;
  const { structuredContent: _omitted, ...rest } = r;
  return rest;
}
