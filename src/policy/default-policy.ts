import { IRREVERSIBLE_EFFECTS, OPEN_WORLD_EFFECTS } from '../protocol/index.js';
import type { PolicySource } from './cedar/policy-set.js';

/** A Cedar set literal of strings, spelled as policies/default.cedar spells it. */
function cedarSetOf(items: readonly string[]): string {
  return `[${items.map((i) => JSON.stringify(i)).join(', ')}]`;
}

/**
 * The shipped default policy, the same text as policies/default.cedar (a test keeps the two
 * equal): embedded so that the runtime needs no file lookup relative to its install. The
 * open-world and irreversible effect lists come from protocol's one definition.
 */
export const DEFAULT_POLICY_SOURCE: PolicySource = {
  name: 'default.cedar',
  text: `// Toolgate default policy (docs/policy.md). The decision is grant AND policy: these rules
// narrow what a grant allows; nothing here widens a grant.

@id("default.read-workspace")
@reason("reads and searches inside the workspace are allowed")
permit (principal, action, resource is Toolgate::Path)
when { context.effect == "read" && resource.access == "read" };

@id("default.change-workspace")
@reason("writes and runs inside the workspace are allowed")
permit (principal, action, resource is Toolgate::Path)
when { ["write", "execute"].contains(context.effect) };

@id("default.local-refs")
@reason("reading refs and moving local branches are allowed (the grant lists which refs)")
permit (principal, action, resource is Toolgate::Ref)
when { ["read", "write"].contains(context.effect) };

@id("default.tool-only")
@reason("calls that name no resource are allowed for local effect classes")
permit (principal, action, resource is Toolgate::Tool)
when { ["read", "write", "execute"].contains(context.effect) };

@id("default.network-needs-approval")
@approval("required")
@reason("network access needs an approval")
permit (principal, action, resource is Toolgate::Host);

@id("default.irreversible-needs-approval")
@approval("required")
@reason("irreversible effects (${IRREVERSIBLE_EFFECTS.join(', ')}) need an approval")
permit (principal, action, resource)
when { ${cedarSetOf(OPEN_WORLD_EFFECTS)}.contains(context.effect) };

@id("default.connector-read")
@reason("reads of resources an upstream connector names are allowed (its manifest says which arguments name them)")
permit (principal, action, resource is Toolgate::Resource)
when { context.effect == "read" };

@id("default.manifest-approval")
@approval("required")
@reason("the connector manifest requires approval for this tool (or the upstream tool is unclassified)")
permit (principal, action, resource)
when { context has approval_required && context.approval_required };

@id("default.forbid-secret-paths")
@reason("secret paths are never read, written or run")
forbid (principal, action, resource is Toolgate::Path)
when { resource.class == "secret" };

@id("default.forbid-git-writes")
@reason("nothing writes under .git/ except the git tools through refs")
forbid (principal, action, resource is Toolgate::Path)
when { resource.class == "protected" && resource.access != "read" };

@id("default.programs")
@reason("the programs a shell line runs are allowed; add forbid rules on Toolgate::Program to restrict them (docs/shell-intent.md)")
permit (principal, action, resource is Toolgate::Program);
`,
};
