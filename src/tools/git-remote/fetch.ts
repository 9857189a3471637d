import { errorBody, failpoint, ToolgateError } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type ToolDefinition, type ToolOutcome } from '../../registry/index.js';
import { systemResolver } from '../../resources/index.js';
import { configureRemotes, type ConfiguredRemote } from './config.js';
import type { GitRemoteOptions } from './push.js';
import { withOwnDigest } from './own-digest.js';
import { normalizeRef } from './refname.js';
import { gitFetchArgs, gitFetchResult, type GitFetchArgs, type GitFetchResult } from './schema.js';
import { authorizeRemote, evidenceOf, type RemoteTarget } from './target.js';
import { setTrackingRef, workspaceRepository } from './workspace-repo.js';

interface Prepared {
  readonly target: RemoteTarget;
  readonly refs: readonly string[];
  /** The name under refs/remotes/. */
  readonly name: string;
}

/** `refs/heads/x` → `refs/remotes/<name>/x`; any other ref keeps its full name under the remote's. */
export function trackingRefOf(name: string, ref: string): string {
  return ref.startsWith('refs/heads/') ? `refs/remotes/${name}/${ref.slice('refs/heads/'.length)}` : `refs/remotes/${name}/${ref}`;
}

/**
 * git.fetch: a read. The named refs of an authorized remote, each in the grant's refs, fetched
 * over the same pinned connection as a push, their objects into the workspace repository and
 * their values into refs/remotes/<name>/… (nothing else of the workspace changes).
 */
export function createGitFetch(o: GitRemoteOptions = {}, remotes: readonly ConfiguredRemote[] = configureRemotes(o.config, o.env ?? process.env)): ToolDefinition<GitFetchArgs, GitFetchResult, Prepared> {
  const resolver = o.resolver ?? systemResolver();
  return withOwnDigest(defineTool<GitFetchArgs, GitFetchResult, Prepared>({
    name: 'git.fetch',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Fetch refs of a remote (a name from connectors.git or an http(s)/git URL whose host is in the grant) into refs/remotes/<name>/ of the workspace repository; each ref must be in the grant\'s refs.',
    owner: 'toolgate',
    effect_class: 'read',
    reversible: false,
    capabilities: ['network', 'git'],
    args: gitFetchArgs,
    result: gitFetchResult,
    timeout_ms: 300_000,
    max_output_bytes: 64 * 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    async normalize(args, ctx) {
      if (!ctx.destinationGrant) throw new ToolgateError('internal_error', 'git.fetch needs the grant of the task to authorize its destination');
      const refs = [...new Set(args.refs.map(normalizeRef))];
      const target = await authorizeRemote('git.fetch', args.remote, remotes, await ctx.destinationGrant(), resolver);
      const name = target.configured?.config.name ?? args.name ?? 'fetched';
      return {
        resources: [{ kind: 'host', host: target.host, port: target.connection.destination.port }, ...refs.map((ref) => ({ kind: 'ref' as const, ref, access: 'read' as const }))],
        effect_class: 'read',
        prepared: { target, refs, name },
      };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx): Promise<ToolOutcome<GitFetchResult>> => {
        const { args, prepared } = ctx;
        const c = prepared.target.connection;
        const d = c.destination;
        const root = ctx.workspace.root;
        const repo = await workspaceRepository(root, ctx.signal);
        const timeoutMs = Math.max(1, ctx.deadline - Date.now());
        const fail = (message: string, exit_code: number | null) =>
          failedOutcome<GitFetchResult>(errorBody('execution_failed', message, { reason: 'fetch_failed', url: d.url, address: d.connectTo.address, ref: null, exit_code }));
        // Which of the refs exist: a fetch of one missing ref would fail them all.
        const listed = await c.lsRemote(prepared.refs, { signal: ctx.signal, timeoutMs, objectFormat: repo.objectFormat });
        ctx.signal.throwIfAborted();
        if (listed.refs === null) return fail(`could not list refs at ${d.url}: ${listed.run.stderr.trim().slice(0, 300)}`, listed.run.exit_code);
        const present = listed.refs.filter((r) => r.oid !== null).map((r) => r.ref);
        let fetched: ReadonlyMap<string, string> = new Map();
        if (present.length) {
          const f = await c.fetch(present, { signal: ctx.signal, timeoutMs: Math.max(1, ctx.deadline - Date.now()), objects: repo.objects, objectFormat: repo.objectFormat });
          ctx.signal.throwIfAborted();
          if (f.fetched === null) return fail(`git fetch from ${d.url} failed (${f.run.reason}, exit ${f.run.exit_code}): ${f.run.stderr.trim().slice(0, 300)}`, f.run.exit_code);
          fetched = f.fetched;
        }
        const refs: GitFetchResult['refs'] = [];
        for (const ref of prepared.refs) {
          const oid = fetched.get(ref) ?? null;
          const tracking = trackingRefOf(prepared.name, ref);
          const { old } = oid === null ? { old: null } : await setTrackingRef(root, tracking, oid, ctx.signal);
          refs.push({ ref, oid, tracking_ref: tracking, old });
          failpoint('during_effect'); // a tracking ref moved (more may follow)
        }
        const destination = evidenceOf(c);
        return { status: 'succeeded', result: { remote: args.remote, url: d.url, refs, destination }, evidence: { destination, refs } };
      }),
  }));
}
