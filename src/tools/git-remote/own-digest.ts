import { digestOf } from '../../protocol/index.js';

/**
 * git.push and git.fetch share this folder and its helpers, so the registry's digest of the
 * folder's files is the same for both. Each gets that digest bound to its own name: a change in
 * any shared helper moves both, and the two entries stay distinct (docs/registry.md).
 */
export function withOwnDigest<T extends { readonly name: string; readonly implementation_digest: string }>(tool: T): T {
  return { ...tool, implementation_digest: digestOf({ folder: tool.implementation_digest, tool: tool.name }) };
}
