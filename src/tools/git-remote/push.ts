import { errorBody, failpoint, ToolgateError } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type ToolDefinition, type ToolOutcome } from '../../registry/index.js';
import { systemResolver, type HostResolver } from '../../resources/index.js';
import { configureRemotes, pushEffectClass, type ConfiguredRemote, type GitConnectorConfig } from './config.js';
import { pushAnswers } from './porcelain.js';
import { reconcileGitPush, type PushIntent } from './reconcile.js';
import { withOwnDigest } from './own-digest.js';
import { normalizeRef } from './refname.js';
import { gitPushArgs, gitPushResult, type GitPushArgs, type GitPushResult } from './schema.js';
import { authorizeRemote, evidenceOf, type RemoteTarget } from './target.js';
import { containsCommit, resolveCommit, workspaceRepository, type WorkspaceRepository } from './workspace-repo.js';

export interface GitRemoteOptions {
  /** `connectors.git` of toolgate.config.json. */
  readonly config?: GitConnectorConfig;
  /** How host names are resolved (tests inject a DNS server); default getaddrinfo. */
  readonly resolver?: HostResolver;
  /** Where credential values are read (once, here); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

interface Prepared {
  readonly target: RemoteTarget;
  readonly ref: string;
  readonly commit: string;
  readonly repo: WorkspaceRepository;
}

/** Local reads at normalize (rev-parse) are bounded like any git read of a tool. */
const NORMALIZE_GIT_MS = 15_000;

function msLeft(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

/**
 * git.push: one commit to one ref of an authorized remote, as a compare-and-swap. The remote's
 * value is read first (pinned ls-remote); the push carries `--force-with-lease=<ref>:<that
 * value>`, so the remote moves the ref only from the value recorded at markSent to our commit.
 * That is what makes reconcile decidable: our commit there → completed, the recorded value there
 * → released, anything else → someone else moved it, and a person decides.
 */
export function createGitPush(o: GitRemoteOptions = {}, remotes: readonly ConfiguredRemote[] = configureRemotes(o.config, o.env ?? process.env)): ToolDefinition<GitPushArgs, GitPushResult, Prepared> {
  const resolver = o.resolver ?? systemResolver();
  return withOwnDigest(defineTool<GitPushArgs, GitPushResult, Prepared>({
    name: 'git.push',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Push one commit of the workspace repository (default HEAD) to one ref of a remote: a name from connectors.git or an http(s)/git URL whose host is in the grant; the ref must be in the grant\'s refs. Fast-forward only unless force is allowed for that remote. A push whose answer is lost is ambiguous and is reconciled with ls-remote, never pushed again blindly.',
    owner: 'toolgate',
    effect_class: 'publish',
    reversible: false,
    capabilities: ['network', 'git'],
    args: gitPushArgs,
    result: gitPushResult,
    timeout_ms: 120_000,
    max_output_bytes: 64 * 1024,
    cancellation: 'cooperative',
    idempotency: 'reconcile',
    reconcile: (ctx) => reconcileGitPush(ctx, remotes),
    async normalize(args, ctx) {
      if (!ctx.destinationGrant) throw new ToolgateError('internal_error', 'git.push needs the grant of the task to authorize its destination');
      const ref = normalizeRef(args.ref);
      const target = await authorizeRemote('git.push', args.remote, remotes, await ctx.destinationGrant(), resolver);
      if (args.force && target.configured?.config.allow_force !== true) {
        throw new ToolgateError('connector_not_configured', `a force push to ${target.connection.destination.url} is not allowed by connectors.git (allow_force)`, {
          tool: 'git.push',
          url: target.connection.destination.url,
          host: target.host,
          method: 'force',
          reason: 'force_not_allowed',
        });
      }
      const signal = AbortSignal.timeout(NORMALIZE_GIT_MS);
      const repo = await workspaceRepository(ctx.workspace.root, signal);
      const commit = await resolveCommit(ctx.workspace.root, args.revision, signal);
      // A force push can drop commits from the remote: the delete class, its own grant and approval.
      const effect = args.force ? 'delete' : pushEffectClass(target.configured?.config.push ?? 'publish');
      return {
        resources: [
          { kind: 'host', host: target.host, port: target.connection.destination.port },
          { kind: 'ref', ref, access: 'write' },
        ],
        effect_class: effect,
        prepared: { target, ref, commit, repo },
      };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx): Promise<ToolOutcome<GitPushResult>> => {
        const { args, prepared } = ctx;
        const { target, ref, commit, repo } = prepared;
        const c = target.connection;
        const d = c.destination;
        const destination = evidenceOf(c);
        const failed = (reason: 'remote_unreachable' | 'not_fast_forward' | 'remote_ahead' | 'rejected', message: string, exit_code: number | null, answer?: string) =>
          failedOutcome<GitPushResult>(errorBody('execution_failed', message, { reason, url: d.url, address: d.connectTo.address, ref, exit_code, ...(answer !== undefined ? { answer } : {}) }));

        // 1. What the remote holds now (a read: nothing sent that could change it).
        const before = await c.lsRemote([ref], { signal: ctx.signal, timeoutMs: msLeft(ctx.deadline), objectFormat: repo.objectFormat });
        ctx.signal.throwIfAborted();
        if (before.refs === null) {
          return failed('remote_unreachable', `could not read ${ref} at ${d.url} (${before.run.reason}, exit ${before.run.exit_code}): ${before.run.stderr.trim().slice(0, 300)}; nothing was pushed`, before.run.exit_code);
        }
        const old = before.refs[0]?.oid ?? null;
        const result = (outcome: GitPushResult['outcome'], answer: GitPushResult['answer']): GitPushResult => ({ remote: args.remote, url: d.url, ref, old, new: commit, forced: args.force, outcome, answer, destination });
        if (old === commit) {
          return { status: 'succeeded', result: result('up_to_date', null), evidence: { destination, ref, old, new: commit, answer: null } };
        }
        // 2. Fast-forward only, checked here: the lease below makes any push a forced one.
        if (!args.force && old !== null) {
          const ff = await containsCommit(ctx.workspace.root, old, commit, ctx.signal);
          if (ff !== true) {
            return ff === false
              ? failed('not_fast_forward', `${ref} at ${d.url} is ${old}, which ${commit} does not contain; nothing was pushed`, null)
              : failed('remote_ahead', `${ref} at ${d.url} is ${old}, a commit the workspace does not have (fetch first); nothing was pushed`, null);
          }
        }
        // 3. The push, as a compare-and-swap from `old`. markSent right before git starts: git
        //    offers no point between its connect and its first command, and the read above has
        //    just shown the remote reachable; a push that then fails before sending is ambiguous
        //    for a moment and reconcile settles it (the ref still at `old` → released).
        const intent: PushIntent = { url: d.url, address: d.connectTo.address, port: d.port, servername: d.servername, ref, old, new: commit, force: args.force };
        const run = await c.git(['push', '--porcelain', '--no-verify', `--force-with-lease=${ref}:${old ?? ''}`, '{url}', `${args.force ? '+' : ''}${commit}:${ref}`], {
          signal: ctx.signal,
          timeoutMs: msLeft(ctx.deadline),
          objects: repo.objects,
          objectFormat: repo.objectFormat,
          onSpawn: () => ctx.markSent(intent),
        });
        failpoint('during_effect'); // git ended: the remote may have moved the ref, its answer not yet read
        ctx.signal.throwIfAborted();
        const answer = pushAnswers(run.stdout).find((a) => a.ref === ref) ?? null;
        const evidence = { destination, ref, old, new: commit, forced: args.force, answer, exit: { reason: run.reason, exit_code: run.exit_code, signal: run.signal } };
        if (answer === null) {
          return {
            status: 'ambiguous',
            result: null,
            error: errorBody('ambiguous_effect', `git push to ${d.url} ended without the remote's answer for ${ref} (${run.reason}, exit ${run.exit_code}${run.signal ? `, ${run.signal}` : ''}): ${run.stderr.trim().slice(0, 300)}; reconcile before retrying`, {
              reason: `no_answer:${run.reason}`,
              tool_stopped: true,
            }),
            evidence,
          };
        }
        switch (answer.flag) {
          case ' ':
          case '+':
            return { status: 'succeeded', result: result('updated', answer), evidence };
          case '*':
            return { status: 'succeeded', result: result('created', answer), evidence };
          case '=':
            return { status: 'succeeded', result: result('up_to_date', answer), evidence };
          default:
            // `!`: refused, by the remote (a hook, a protected branch) or by git before sending
            // (the lease: the ref moved since it was read). Either way the ref did not move.
            return { ...failed('rejected', `${d.url} did not take ${ref}: ${answer.summary}`, run.exit_code, answer.summary), evidence };
        }
      }),
  }));
}
