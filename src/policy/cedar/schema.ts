import type { SchemaJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { CapabilityDimension, Manifest } from '../../registry/index.js';

export const CEDAR_NAMESPACE = 'Toolgate';

/** Cedar entity types, one per kind of normalized resource, plus the tool itself for calls that name none. */
export const RESOURCE_TYPES = ['Path', 'Host', 'Ref', 'Program', 'Tool', 'Resource'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** A process runs in the workspace (Path) and runs programs (Program: what a shell line names). */
const RESOURCES_OF_CAPABILITY: Readonly<Record<CapabilityDimension, readonly ResourceType[]>> = {
  'fs.read': ['Path'],
  'fs.write': ['Path'],
  process: ['Path', 'Program'],
  network: ['Host'],
  git: ['Ref'],
  connector: ['Resource'],
};

const str = { type: 'String' } as const;
const long = { type: 'Long' } as const;
const bool = { type: 'Boolean' } as const;
const strings = { type: 'Set', element: str } as const;

/** Attributes of the call's context; `time` is epoch milliseconds. */
const CONTEXT = {
  type: 'Record',
  attributes: {
    effect: str,
    args_digest: str,
    tool_version: str,
    time: long,
    // Set by a connector manifest (or an unclassified upstream tool) that requires approval.
    approval_required: { type: 'Boolean', required: false },
  },
} as const;

/** The resource types a tool's calls may carry: from its declared capabilities, and always `Tool`. */
export function resourceTypesOf(capabilities: readonly CapabilityDimension[]): ResourceType[] {
  const kinds = new Set<ResourceType>(capabilities.flatMap((c) => RESOURCES_OF_CAPABILITY[c]));
  kinds.add('Tool');
  return RESOURCE_TYPES.filter((k) => kinds.has(k));
}

/**
 * The Cedar schema for a registry revision: one action per tool name (its versions share it),
 * applying to a `Task` principal and the resource types its capabilities imply.
 */
export function cedarSchemaOf(manifest: Manifest): SchemaJson<string> {
  const caps = new Map<string, Set<CapabilityDimension>>();
  for (const e of manifest.tools) {
    const set = caps.get(e.name) ?? new Set<CapabilityDimension>();
    for (const c of e.capabilities) set.add(c);
    caps.set(e.name, set);
  }
  const actions: SchemaJson<string>[string]['actions'] = {};
  for (const [name, set] of [...caps].sort(([a], [b]) => (a < b ? -1 : 1))) {
    actions[name] = {
      appliesTo: { principalTypes: ['Task'], resourceTypes: resourceTypesOf([...set]), context: CONTEXT },
    };
  }
  const record = (attributes: Record<string, typeof str | typeof long | typeof bool | typeof strings>): { type: 'Record'; attributes: typeof attributes } => ({ type: 'Record', attributes });
  return {
    [CEDAR_NAMESPACE]: {
      entityTypes: {
        Task: { shape: record({ tenant: str, principal: str, attempt: str }) },
        Path: { shape: record({ path: str, access: str, class: str }) },
        Host: { shape: record({ host: str, port: long }) },
        Ref: { shape: record({ ref: str, access: str }) },
        Program: {
          shape: record({
            name: str,
            path: str,
            args: strings,
            wrappers: strings,
            is_interpreter: bool,
            runs_code: bool,
            has_network_flags: bool,
            system: bool,
            resolved: bool,
            unresolved: str,
          }),
        },
        Tool: { shape: record({ name: str }) },
        Resource: { shape: record({ system: str, type: str, id: str, access: str }) },
      },
      actions,
    },
  };
}
