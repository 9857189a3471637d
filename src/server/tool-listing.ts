// Registry entries as MCP tools: names, schemas and annotations (docs/mcp.md).
import type { Tool } from '@modelcontextprotocol/server';
import { OPEN_WORLD_EFFECTS, type EffectClass } from '../protocol/index.js';
import type { ManifestEntry } from '../registry/index.js';

type JsonObject = Record<string, unknown>;

export interface McpToolAnnotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** A tool as `tools/list` returns it. */
export type McpToolDefinition = Tool;

/** The registry name as MCP clients see it: `fs.read` → `fs_read` (many clients reject dots). */
export function mcpToolName(registryName: string): string {
  return registryName.replace(/\./g, '_');
}

const OPEN_WORLD: ReadonlySet<EffectClass> = new Set(OPEN_WORLD_EFFECTS);

export function annotationsOf(entry: ManifestEntry): McpToolAnnotations {
  const readOnly = entry.effect_class === 'read';
  return {
    title: entry.name,
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && !entry.reversible,
    idempotentHint: entry.idempotency === 'safe_to_repeat',
    openWorldHint: OPEN_WORLD.has(entry.effect_class),
  };
}

/** What `structuredContent` holds when the call did not succeed. */
const ERROR_CONTENT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    status: { type: 'string' },
    receipt_id: { type: 'string' },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, data: { type: 'object' } },
      required: ['code', 'message'],
    },
  },
  required: ['status', 'receipt_id', 'error'],
};

/** What `structuredContent` holds when the result was too large to inline and went to an artifact. */
const SPILLED_CONTENT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { artifact: { type: 'string' }, bytes: { type: 'integer' }, inline: { const: false } },
  required: ['artifact', 'bytes', 'inline'],
};

function withoutKeys(schema: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !keys.includes(k)));
}

/**
 * The output schema: the tool's result, or the error content of a failed call, or a spilled
 * result. SDK 1.32 clients validate `structuredContent` against it even for `isError` results,
 * so the error shape must be part of it (docs/mcp-notes.md). `$defs` move to the root so that
 * `#/$defs/…` references still resolve.
 */
export function outputSchemaOf(entry: ManifestEntry): JsonObject & { type: 'object' } {
  const response = entry.response_schema as JsonObject;
  const defs = response['$defs'];
  return {
    $schema: response['$schema'] ?? 'https://json-schema.org/draft/2020-12/schema',
    type: 'object' as const,
    anyOf: [withoutKeys(response, ['$schema', '$defs']), ERROR_CONTENT_SCHEMA, SPILLED_CONTENT_SCHEMA],
    ...(defs === undefined ? {} : { $defs: defs }),
  };
}

export function toolDefinitionOf(entry: ManifestEntry): McpToolDefinition {
  // MCP requires an object at the root of inputSchema; every registry request schema is one.
  if (entry.request_schema['type'] !== 'object') throw new TypeError(`tool ${entry.name}: request schema is not an object schema`);
  // structuredContent must be an object, so the result must be one too.
  if (entry.response_schema['type'] !== 'object') throw new TypeError(`tool ${entry.name}: response schema is not an object schema`);
  return {
    name: mcpToolName(entry.name),
    description: entry.description,
    inputSchema: { ...entry.request_schema, type: 'object' as const },
    outputSchema: outputSchemaOf(entry),
    annotations: annotationsOf(entry),
    _meta: {
      'toolgate/tool': entry.name,
      'toolgate/version': entry.version,
      'toolgate/effect_class': entry.effect_class,
    },
  };
}

/** The tools one server offers, and the way back from an MCP name to a registry name. */
export class ToolListing {
  readonly tools: McpToolDefinition[];
  readonly #registryNames: ReadonlyMap<string, string>;
  readonly #undoable: ReadonlySet<string>;

  constructor(entries: readonly ManifestEntry[]) {
    const names = new Map<string, string>();
    for (const e of entries) {
      const mcp = mcpToolName(e.name);
      const other = names.get(mcp);
      if (other !== undefined && other !== e.name) throw new TypeError(`tools ${other} and ${e.name} both map to MCP name ${mcp}`);
      names.set(mcp, e.name);
    }
    this.#registryNames = names;
    // fs.undo reverts the workspace writes of Toolgate's own reversible tools (docs/mcp.md).
    this.#undoable = new Set(entries.filter((e) => e.owner === 'toolgate' && e.reversible && e.effect_class === 'write').map((e) => e.name));
    this.tools = entries.map(toolDefinitionOf);
  }

  /** Whether a succeeded receipt of this registry tool can be reverted with fs.undo. */
  undoable(registryName: string): boolean {
    return this.#undoable.has(registryName);
  }

  /**
   * The registry name for an MCP name. An unknown `family_verb` becomes `family.verb` so the
   * runtime refuses it as `unknown_tool` with a receipt (not as a malformed envelope).
   */
  registryName(mcpName: string): string {
    return this.#registryNames.get(mcpName) ?? mcpName.replace('_', '.');
  }
}
