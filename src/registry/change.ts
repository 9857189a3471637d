// One classified difference between two registry manifests. Plain data: the JSON form of a
// diff is these objects as they are (see docs/registry.md, "Compatibility diff").

export type ChangeSeverity = 'breaking' | 'compatible';

/** Which schema of the entry a schema change is in; `null` for entry-level changes. */
export type SchemaSide = 'request' | 'response';

export type ChangeKind =
  // tools and versions
  | 'tool_added'
  | 'tool_version_added'
  | 'tool_removed'
  | 'tool_version_removed'
  // entry fields
  | 'description_changed'
  | 'owner_changed'
  | 'implementation_changed'
  | 'effect_class_widened'
  | 'effect_class_narrowed'
  | 'effect_class_changed'
  | 'reversibility_lost'
  | 'reversibility_gained'
  | 'capability_added'
  | 'capability_removed'
  | 'timeout_lowered'
  | 'timeout_raised'
  | 'output_limit_lowered'
  | 'output_limit_raised'
  | 'cancellation_changed'
  | 'idempotency_weakened'
  | 'idempotency_strengthened'
  | 'redaction_weakened'
  | 'redaction_strengthened'
  | 'deprecation_changed'
  // schema
  | 'field_added'
  | 'required_field_added'
  | 'field_removed'
  | 'field_renamed'
  | 'field_became_required'
  | 'field_became_optional'
  | 'type_changed'
  | 'type_widened'
  | 'type_narrowed'
  | 'enum_widened'
  | 'enum_narrowed'
  | 'default_added'
  | 'default_changed'
  | 'default_removed'
  | 'constraint_tightened'
  | 'constraint_loosened'
  | 'unknown_fields_rejected'
  | 'unknown_fields_allowed'
  | 'variant_added'
  | 'variant_removed'
  | 'schema_keyword_changed';

export interface RegistryChange {
  readonly tool: string;
  /** The version in the old manifest; `null` when the version is new. */
  readonly from_version: string | null;
  /** The version in the new manifest; `null` when the version was removed. */
  readonly to_version: string | null;
  readonly kind: ChangeKind;
  readonly severity: ChangeSeverity;
  readonly schema: SchemaSide | null;
  /** Argument or result path for people (`nested.items[].name`); `null` for entry-level changes. */
  readonly field: string | null;
  /** JSON pointer into the new schema (old schema for removals); `null` for entry-level changes. */
  readonly pointer: string | null;
  readonly message: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

export const REGISTRY_DIFF_FORMAT = 'toolgate.registry-diff.v1';

export interface ManifestDiff {
  readonly format: typeof REGISTRY_DIFF_FORMAT;
  readonly old_revision: string;
  readonly new_revision: string;
  /** True when any change is breaking: `registry diff` exits 1. */
  readonly breaking: boolean;
  readonly changes: readonly RegistryChange[];
}
