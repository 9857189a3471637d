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
    case 'resource':
      return { type: 'Resource', id: `${r.system}:${r.type}:${r.id}`, attrs: { system: r.system, type: r.type, id: r.id, access: r.access } };
  }
}

/**
 * The Cedar requests for one call: one per resource (every one must be allowed), or one
 * against the tool itself when the call names no resource.
 */
export function cedarRequestsOf(action: NormalizedAction, subject: GrantSubject, attempt: string, now: number, classifier: PathClassifier): CedarRequest[] {
  const principal = { id: subject.task_id, attrs: { tenant: subject.tenant, principal: subject.principal, attempt } };
  const context = {
    effect: action.effect_class,
    args_digest: action.args_digest,
    tool_version: action.tool_version,
    time: now,
    ...(action.approval_required ? { approval_required: true } : {}),
  };
  const resources: CedarRequest['resource'][] = action.resources.length
    ? action.resources.map((r) => resourceOf(r, classifier))
    : [{ type: 'Tool', id: action.tool, attrs: { name: action.tool } }];
  return resources.map((resource) => ({ action: action.tool, principal, resource, context }));
}
