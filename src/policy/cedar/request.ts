import type { NormalizedAction, Resource } from '../../protocol/index.js';
import type { PathClassifier } from '../../resources/index.js';
import type { GrantSubject } from '../grant.js';
import type { CedarRequest } from './policy-set.js';

function resourceOf(r: Resource, classifier: PathClassifier): CedarRequest['resource'] {
  switch (r.kind) {
    case 'path':
      return { type: 'Path', id: r.path, attrs: { path: r.path, access: r.access, class: classifier.classify(r.path) } };
    case 'host':
      return { type: 'Host', id: r.port === null ? r.host : `${r.host}:${r.port}`, attrs: { host: r.host, port: r.port ?? 0 } };
    case 'ref':
      return { type: 'Ref', id: r.ref, attrs: { ref: r.ref, access: r.access } };
    case 'program':
      return {
        type: 'Program',
        id: r.unresolved === null ? (r.path ?? r.name) : `unresolved:${r.unresolved}`,
        attrs: {
          name: r.name,
          path: r.path ?? '',
          args: [...new Set(r.args)].sort(),
          wrappers: [...new Set(r.wrappers)].sort(),
          is_interpreter: r.is_interpreter,
          runs_code: r.runs_code,
          has_network_flags: r.has_network_flags,
          system: r.system,
          resolved: r.unresolved === null,
          unresolved: r.unresolved ?? '',
        },
      };
    case 'resource':
      return { type: 'Resource', id: `${r.system}:${r.type}:${r.id}`, attrs: { system: r.system, type: r.type, id: r.id, access: r.access } };
  }
}

/**
 * The Cedar requests for one call: one per resource (every one must be allowed), or one
 * against the tool itself when the call names no resource.
 */
export function cedarRequestsOf(action: NormalizedAction, subject: GrantSubject, attempt: string, now: number, classifier: PathClassifier, withPrograms = true): CedarRequest[] {
  const principal = { id: subject.task_id, attrs: { tenant: subject.tenant, principal: subject.principal, attempt } };
  const context = {
    effect: action.effect_class,
    args_digest: action.args_digest,
    tool_version: action.tool_version,
    time: now,
    ...(action.approval_required ? { approval_required: true } : {}),
  };
  // Programs go to Cedar only when some policy has rules for them (CedarPolicySet.restrictsPrograms).
  const named = withPrograms ? action.resources : action.resources.filter((r) => r.kind !== 'program');
  const resources: CedarRequest['resource'][] = named.length
    ? named.map((r) => resourceOf(r, classifier))
    : [{ type: 'Tool', id: action.tool, attrs: { name: action.tool } }];
  return resources.map((resource) => ({ action: action.tool, principal, resource, context }));
}
