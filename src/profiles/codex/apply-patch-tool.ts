// Codex's apply_patch (the JSON-function variant, `{input}`: MCP has no freeform tools) onto ONE
// fs.patch call, all or nothing. The files the patch updates are read first (fs.read, each
// through the pipeline), so its chunks are placed the way the original places them — `@@`
// anchors, the four seek levels — and each edit carries the file's own text; then the patch is
// one fs.patch envelope. Texts: the original's (apply-patch/render.ts). A `shell` call of
// ["apply_patch", PATCH], as older models send it, comes here too.
import type { Receipt } from '../../protocol/index.js';
import type { InputSchema, JsonObject, Mapping, ProfileContext, ProfileText, ProfileTool, ToolCall } from '../profile.js';
import { toFsPatchArgs } from './apply-patch/map.js';
import { parseApplyPatch, type ParsedPatch, type PatchHunk } from './apply-patch/parse.js';
import { renderApplyPatchResult } from './apply-patch/render.js';
import { workspacePath } from '../paths.js';

/** fs.read's largest page: a file beyond it is patched without its text (exact edits of the chunks' own lines). */
const READ_MAX_BYTES = 4 * 1024 * 1024;

export const APPLY_PATCH_SCHEMA: InputSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'toolsurf/codex/apply_patch.json',
  title: 'apply_patch',
  description:
    'Use the `apply_patch` tool to edit files. Pass the whole patch as `input`: `*** Begin Patch`, then `*** Add File: PATH` (every line prefixed with +), `*** Delete File: PATH` or `*** Update File: PATH` (optionally `*** Move to: NEW`) with `@@` chunks of context ( ), removed (-) and added (+) lines, then `*** End Patch`. File references should be relative.',
  type: 'object',
  properties: {
    input: { type: 'string', description: 'The entire contents of the apply_patch command.' },
  },
  required: ['input'],
  additionalProperties: false,
};

/** The patch with its paths as Toolgate's (beneath the workspace), for the call; the agent's are kept for the text. */
function inWorkspace(patch: ParsedPatch, root: string): ParsedPatch {
  return {
    hunks: patch.hunks.map((h): PatchHunk => {
      const path = workspacePath(h.path, root);
      return h.kind === 'update' ? { ...h, path, moveTo: h.moveTo === null ? null : workspacePath(h.moveTo, root) } : { ...h, path };
    }),
  };
}

function updated(patch: ParsedPatch): string[] {
  return patch.hunks.filter((h) => h.kind === 'update').map((h) => h.path);
}

function textOf(r: Receipt): string | null | undefined {
  if (r.status !== 'succeeded') return r.error?.code === 'not_found' ? null : undefined;
  const res = r.result as { content?: unknown; truncated?: unknown; binary?: unknown } | null;
  if (res === null || res.truncated === true || res.binary === true || typeof res.content !== 'string') return undefined;
  return res.content;
}

export function applyPatchPrepare(input: string, ctx: ProfileContext): readonly ToolCall[] {
  const parsed = parseApplyPatch(input);
  if (!parsed.ok) return [];
  return updated(inWorkspace(parsed.patch, ctx.root)).map((path) => ({ tool: 'fs.read', arguments: { path, max_bytes: READ_MAX_BYTES, line_numbers: false } }));
}

export function applyPatchMap(input: string, ctx: ProfileContext, prepared: readonly Receipt[] = []): Mapping {
  const parsed = parseApplyPatch(input);
  if (!parsed.ok) return { refuse: { code: 'invalid_arguments', text: parsed.message } };
  const patch = inWorkspace(parsed.patch, ctx.root);
  const texts = new Map<string, string | null | undefined>();
  updated(patch).forEach((path, i) => {
    const r = prepared[i];
    if (r !== undefined) texts.set(path, textOf(r));
  });
  const mapped = toFsPatchArgs(patch, (path) => texts.get(path));
  if (!mapped.ok) return { refuse: { code: mapped.code, text: mapped.text } };
  return { call: { tool: 'fs.patch', arguments: mapped.arguments as unknown as JsonObject } };
}

export function applyPatchRender(r: Receipt, input: string): ProfileText {
  const parsed = parseApplyPatch(input);
  const shown = renderApplyPatchResult(r, parsed.ok ? parsed.patch : undefined);
  return shown.code === null ? { text: shown.text, isError: shown.isError } : { text: shown.text, isError: shown.isError, code: shown.code };
}

export const applyPatchTool: ProfileTool = {
  name: 'apply_patch',
  description: APPLY_PATCH_SCHEMA['description'] as string,
  inputSchema: APPLY_PATCH_SCHEMA,
  prepare: (raw, ctx) => applyPatchPrepare(String(raw['input']), ctx),
  map: (raw, ctx, prepared) => applyPatchMap(String(raw['input']), ctx, prepared),
  render: (r, raw) => applyPatchRender(r, String(raw['input'])),
};
