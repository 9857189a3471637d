import { join } from 'node:path';
import type { ReceiptRetention } from './stages/bind.js';
import { z } from 'zod';
import { StartupError, ToolgateError, faultsOf, type Digest, type Receipt, type ReceiptId, type TaskId } from '../protocol/index.js';
import { hostToolsOnce, packageRootOf, runningRuntimeDigest } from '../provenance/index.js';
import { PROFILE_NAMES, ProfileRunner, profileNamed, type Profile } from '../profiles/index.js';
import { Registry, Rollout, type AnyTool, type RolloutConfig } from '../registry/index.js';
import { Workspace, sweepWorkspaceTemps } from '../resources/index.js';
import { PolicyEngine, type ApprovalDesk, type PolicySource, type TaskGrant } from '../policy/index.js';
import { type AuditCheckpoints, openAuditCheckpoints, guarded, sqliteStore, type AuditOptions, type CheckpointStatus, type EffectRecord, type Store, type StoreFactory } from '../store/index.js';
import { openArtifacts, sweepArtifactParts, type ArtifactLocation, type ArtifactStore } from '../artifacts/index.js';
import { builtinTools, gitConnectorSecrets, httpConnectorSecrets, type GitConnectorConfig, type HttpConnectorConfig } from '../tools/index.js';
import type { HostResolver } from '../resources/index.js';
import type { ToolchainConfig } from '../sandbox/index.js';
import { Admission } from './admission.js';
import type { CallOptions } from './call.js';
import type { ReconcileParts, RuntimeConfig, RuntimeParts, RuntimeServices, RuntimeState } from './parts.js';
import { RunningCalls } from './running-calls.js';
import { RunningEffects } from './attach.js';
import { prepareStateDir } from './state-dir.js';
import { continuationKey } from './tokens.js';
import { Resolver } from './stages/resolve.js';
import { pipelineOf, runPipeline, type Pipeline } from './pipeline.js';
import { listUnsettled, reconcileEffects, settleEffect, type ReconcileReport, type UnsettledEntry } from './reconcile.js';
import { LRUCache } from 'lru-cache';
import { Gateway, parseUpstreams, upstreamSecretValues, type UpstreamsConfig } from '../upstream/index.js';
import type { TracerProvider } from '@opentelemetry/api';
import { CallTelemetry } from './telemetry.js';
import type { CallObserver } from './observe.js';
import { TaskBoard, taskSettings, taskTools, type TasksConfig } from '../tasks/index.js';

export type { CallOptions } from './call.js';

export interface RuntimeOptions {
  /** The workspace root every path is resolved beneath. */
  readonly workspace: string;
  /** Where receipts, effects and artifacts live; outside the workspace. Default: XDG state dir. */
  readonly stateDir?: string;
  /** Tool definitions; default: the built-in tools. */
  readonly tools?: readonly AnyTool[];
  /** The grant file every task is issued at its first call (docs/policy.md). Default: DEFAULT_GRANT. */
  readonly grant?: TaskGrant;
  /** Cedar policies, validated strictly against the registry at start. Default: the shipped default policy. */
  readonly policies?: readonly PolicySource[];
  /** The environment name grants may be conditioned on. */
  readonly environment?: string;
  /** Denials of one normalized action in a task before identical calls get `repeated_denial`. Default 3. */
  readonly repeatedDenialLimit?: number;
  /** How long an approval request stays open, and an approval applies. Default one hour. */
  readonly approvalTtlMs?: number;
  /** Calls executing at once; the rest queue under their deadline. Default 8. */
  readonly concurrency?: number;
  /** Deadline of a call whose envelope has none, from its arrival. Default 120 s. */
  readonly defaultDeadlineMs?: number;
  /**
   * How long a keyed call's effect keeps running after its client cancelled (e.g. the request
   * timed out) and no call with the same key waits for it; a re-issued call attaches within it
   * (docs/protocol.md#long-calls). 0 stops it at once, as an unkeyed call is. Default 60 s.
   */
  readonly detachGraceMs?: number;
  /** How long a tool may take to stop after its signal aborts. Default 5 s. */
  readonly abortGraceMs?: number;
  /** Results larger than this (JSON bytes) are stored as an artifact. Default 6 MiB. */
  readonly inlineResultBytes?: number;
  /**
   * What a stored receipt keeps of workspace content its result carries (fs.read's page):
   * `digest` (default) its sha256 and size, `inline` a copy (docs/protocol.md#retention).
   */
  readonly receiptRetention?: ReceiptRetention;
  /** Extra secret path patterns (see docs/paths.md). */
  readonly secretPatterns?: readonly string[];
  /** Values to redact from everything recorded (e.g. tokens the host injects). */
  readonly secrets?: readonly string[];
  /**
   * Where receipts, effects, tasks and the policy's state live. Default: `sqliteStore()`, one
   * SQLite file in the state dir (its durability and migrations are options of sqliteStore).
   */
  readonly store?: StoreFactory;
  /**
   * Signed checkpoints of the store's ledger (docs/audit.md): the Ed25519 key (outside the
   * state dir and the workspace, hidden from every tool), the checkpoint file, how often it is
   * written. Default on, with `defaultAuditKeyPath()`; `false` turns them off.
   */
  readonly audit?: AuditOptions | false;
  /**
   * Where artifacts live (outputs, and the pre-images undo and reconcile read). Default
   * `{ kind: 'state_dir' }`; hosts sharing one database share a `{ kind: 'folder', path }`
   * (docs/scale.md).
   */
  readonly artifacts?: ArtifactLocation;
  /** Toolchains shell.exec shows read-only (docs/shell.md); used with the built-in tools only. Default: the default list. */
  readonly toolchains?: ToolchainConfig;
  /** A shell.session unused this long ends by itself (docs/shell-session.md). Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /**
   * A compatibility profile (docs/profiles.md), e.g. `claude-code`: `runtime.profile.call(name,
   * args, { task_id })` takes an agent's own tool calls and answers in its text format, each
   * call one envelope through this runtime. Unknown names are refused at open (`usage`).
   */
  readonly profile?: string;
  /** Connectors' configuration (`connectors` of toolgate.config.json); used with the built-in tools only. */
  readonly connectors?: { readonly http?: HttpConnectorConfig; readonly git?: GitConnectorConfig };
  /** How network connectors resolve host names (docs/network.md). Default: getaddrinfo (`systemResolver`). */
  readonly resolver?: HostResolver;
  /**
   * Upstream MCP servers behind this runtime (`upstreams` of toolgate.config.json,
   * docs/gateway.md): started and listed at open, each tool a registry entry, stopped at close.
   */
  readonly upstreams?: UpstreamsConfig;
  /**
   * Canary shares and retirements per tool or upstream namespace (`rollout` of
   * toolgate.config.json, docs/registry.md#rollout): what a new task pins.
   */
  readonly rollout?: RolloutConfig;
  /**
   * Where each call's spans go (docs/operating.md). Default: OpenTelemetry's global provider,
   * a no-op until the host registers one.
   */
  readonly tracerProvider?: TracerProvider;
  /** Told of every ended call and settlement, e.g. the Prometheus metrics of `toolgate serve`. */
  readonly observers?: readonly CallObserver[];
  /**
   * Subtasks (`tasks` of toolgate.config.json, docs/tasks.md): given, the task tools (task.spawn,
   * task.wait, task.cancel, task.result, task.complete) are registered with these bounds.
   */
  readonly tasks?: TasksConfig;
  /**
   * The digest receipts name this runtime by (docs/release.md). Default: the digest of the
   * running package's manifest, its files hashed once per process. A host that runs Toolgate
   * from a bundle, or a test, names its own.
   */
  readonly runtimeDigest?: Digest;
}

/** How full the concurrency limit is: calls executing, calls waiting for a slot, the limit. */
export interface RuntimeLoad {
  readonly active: number;
  readonly queued: number;
  readonly limit: number;
}

function profileOf(name: string | undefined): Profile | null {
  if (name === undefined) return null;
  const p = profileNamed(name);
  if (p === undefined) throw new StartupError('usage', `unknown profile ${JSON.stringify(name.slice(0, 64))}; known profiles: ${PROFILE_NAMES.join(', ')}`);
  return p;
}

function rolloutOf(config: RolloutConfig | undefined): Rollout {
  try {
    return new Rollout(config ?? {});
  } catch (e) {
    // A library caller's value (the CLI checked the file already): the same start-up error.
    const issues = e instanceof z.ZodError ? faultsOf(e).map((f) => ({ ...f, pointer: `/rollout${f.pointer}` })) : [{ pointer: '/rollout', message: (e as Error).message }];
    throw new StartupError('invalid_config', `invalid rollout: ${issues.map((f) => `${f.pointer}: ${f.message}`).join('; ')}`, { file: '(RuntimeOptions.rollout)', reason: 'schema', faults: issues });
  }
}

/** The running package's runtime digest; an installation that cannot be read is a start-up error, not an unnamed runtime. */
async function identify(): Promise<Digest> {
  let root = '(the package of this module)';
  try {
    const pkg = packageRootOf();
    root = pkg.dir;
    return await runningRuntimeDigest(pkg);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new StartupError('invalid_install', `cannot read the installed package at ${root} to compute the runtime digest: ${(e as Error).message}`, { root, cause_code: typeof code === 'string' ? code : null }, { cause: e });
  }
}

export class Runtime {
  readonly #parts: RuntimeParts;
  readonly #pipeline: Pipeline;
  /** What reconcile works with. */
  readonly #reconcile: ReconcileParts;
  readonly #inflight = new Set<Promise<Receipt>>();
  readonly #teardowns = new Set<Promise<unknown>>();
  #closed = false;
  /** Removal of temporary entries a crashed owner left (workspace and artifact parts); close waits for it. */
  readonly #sweep: Promise<unknown>;

  /** Opens the store the options name (SQLite in the state dir by default) and everything else a runtime owns. */
  static async open(opts: RuntimeOptions): Promise<Runtime> {
    const profile = profileOf(opts.profile);
    const workspace = Workspace.open(opts.workspace, opts.secretPatterns ? { secretPatterns: opts.secretPatterns } : {});
    let store: Store | undefined;
    let gateway: Gateway | null = null;
    let audit: AuditCheckpoints | null = null;
    let auditUnavailable: string | null = null;
    try {
      const stateDir = prepareStateDir(workspace, opts.stateDir);
      const opened = opts.audit === false ? null : openAuditCheckpoints(opts.audit ?? {}, { stateDir, workspace: workspace.root });
      if (opened !== null && 'unavailable' in opened) auditUnavailable = opened.unavailable;
      const checkpoints = (audit = opened !== null && 'checkpoints' in opened ? opened.checkpoints : null);
      store = await (opts.store ?? sqliteStore())({ stateDir, ...(checkpoints ? { onLedger: (h) => checkpoints.advanced(h) } : {}) });
      await audit?.attach(store.ledger);
      const hiddenPaths = audit ? [audit.key.path] : [];
      const http = { ...(opts.connectors?.http ? { config: opts.connectors.http } : {}), ...(opts.resolver ? { resolver: opts.resolver } : {}) };
      const git = { ...(opts.connectors?.git ? { config: opts.connectors.git } : {}), ...(opts.resolver ? { resolver: opts.resolver } : {}) };
      const upstreams = parseUpstreams(opts.upstreams);
      if (Object.keys(upstreams).length > 0) gateway = await Gateway.open({ upstreams, hide: [workspace.root, stateDir, ...hiddenPaths], stateDir, workspace: { root: workspace.root, classify: (p) => workspace.classifier.classify(p) } });
      const board = opts.tasks === undefined ? null : new TaskBoard(store, stateDir, taskSettings(opts.tasks, stateDir));
      const registry = new Registry([
        ...(opts.tools ??
          builtinTools({ ...(opts.toolchains ? { toolchains: opts.toolchains } : {}), ...(opts.sessionIdleMs !== undefined ? { sessionIdleMs: opts.sessionIdleMs } : {}), http, git })),
        ...(board ? taskTools(board) : []),
        ...(gateway?.tools() ?? []),
      ], rolloutOf(opts.rollout));
      // A changed upstream listing from now on is a new revision of this registry.
      gateway?.attach(registry);
      // What a connector injects at the boundary is redacted from everything recorded, like `secrets`.
      const secrets = [...(opts.secrets ?? []), ...(opts.tools ? [] : [...httpConnectorSecrets(http), ...gitConnectorSecrets(git)]), ...upstreamSecretValues(upstreams, process.env)];
      const policy = new PolicyEngine({
        manifest: registry.manifest,
        stores: store,
        classifier: workspace.classifier,
        ...(opts.grant ? { grant: opts.grant } : {}),
        ...(opts.policies ? { policies: opts.policies } : {}),
        ...(opts.repeatedDenialLimit !== undefined ? { repeatedDenialLimit: opts.repeatedDenialLimit } : {}),
        ...(opts.approvalTtlMs !== undefined ? { approvalTtlMs: opts.approvalTtlMs } : {}),
      });
      const artifacts = guarded('prepare the artifact store', stateDir, () => openArtifacts(opts.artifacts ?? { kind: 'state_dir' }, stateDir, { secrets }));
      const tokenKey = await continuationKey(store, stateDir);
      const runtimeDigest = opts.runtimeDigest ?? (await identify());
      const receipts = store;
      const services: RuntimeServices = {
        workspace,
        registry,
        store,
        artifacts,
        policy,
        resolver: new Resolver(registry, store, { digest: runtimeDigest, hostTools: () => hostToolsOnce(undefined, join(stateDir, 'host-tools.json')) }),
        receiptLookup: { get: (id) => receipts.getReceipt(id) },
        admission: new Admission(opts.concurrency ?? 8),
        telemetry: new CallTelemetry(opts.tracerProvider, opts.observers ?? []),
      };
      const config: RuntimeConfig = {
        stateDir,
        hiddenPaths,
        tokenKey,
        environment: opts.environment,
        defaultDeadlineMs: opts.defaultDeadlineMs ?? 120_000,
        abortGraceMs: opts.abortGraceMs ?? 5_000,
        inlineResultBytes: opts.inlineResultBytes ?? 6 * 1024 * 1024,
        retention: opts.receiptRetention ?? 'digest',
        secrets,
        runtimeDigest,
      };
      const state: RuntimeState = { attempts: new LRUCache({ max: 10_000 }), running: new RunningCalls(), effects: new RunningEffects(opts.detachGraceMs ?? 60_000) };
      return new Runtime({ services, config, state }, profile, gateway, board, audit, auditUnavailable);
    } catch (e) {
      await gateway?.close();
      await store?.close().catch(() => {});
      await audit?.close().catch(() => {});
      workspace.close();
      throw e;
    }
  }

  /** The compatibility profile this runtime was opened with, bound to it; null without one. */
  readonly profile: ProfileRunner | null;

  /** The upstream MCP servers behind this runtime; null without `upstreams`. */
  readonly gateway: Gateway | null;

  /** The task tree (subtasks) when the runtime was opened with `tasks`; null otherwise. */
  readonly tasks: TaskBoard | null;

  /** The signed checkpoints of the ledger (docs/audit.md); null when turned off or unavailable. */
  readonly audit: AuditCheckpoints | null;
  /** Why the runtime signs no checkpoints although they were not turned off (the default key location cannot be used). */
  readonly auditUnavailable: string | null;

  private constructor(parts: RuntimeParts, profile: Profile | null, gateway: Gateway | null, tasks: TaskBoard | null, audit: AuditCheckpoints | null, auditUnavailable: string | null) {
    this.#parts = parts;
    this.audit = audit;
    this.auditUnavailable = auditUnavailable;
    this.tasks = tasks;
    this.gateway = gateway;
    this.profile = profile === null ? null : new ProfileRunner(profile, { call: (env, o) => this.call(env, o), root: parts.services.workspace.root });
    const { services, config } = parts;
    this.#reconcile = { workspace: services.workspace, registry: services.registry, store: services.store, artifacts: services.artifacts, secrets: config.secrets, runtimeDigest: config.runtimeDigest };
    this.#pipeline = pipelineOf(parts, this.#reconcile);
    sweepArtifactParts(services.artifacts.dir, services.artifacts.partsDir);
    this.#sweep = sweepWorkspaceTemps(services.workspace).catch(() => []);
  }

  /** The sweep of crash leftovers started at open (tests wait for it). */
  sweptTemps(): Promise<unknown> {
    return this.#sweep;
  }

  get workspace(): Workspace {
    return this.#parts.services.workspace;
  }
  get registry(): Registry {
    return this.#parts.services.registry;
  }
  /** The store behind this runtime, as its interface (receipts, effects, audit chain). */
  get store(): Store {
    return this.#parts.services.store;
  }
  get artifacts(): ArtifactStore {
    return this.#parts.services.artifacts;
  }
  get stateDir(): string {
    return this.#parts.config.stateDir;
  }
  /** The latest signed checkpoint of the ledger (what `_meta["toolgate/checkpoint"]` carries); null when turned off. */
  checkpoint(): CheckpointStatus | null {
    return this.audit?.status() ?? null;
  }
  /** The policy in force: its version, grants per task, budgets. */
  get policy(): PolicyEngine {
    return this.#parts.services.policy;
  }
  /** The concurrency limit's use now (the saturation gauges of docs/operating.md). */
  get load(): RuntimeLoad {
    const a = this.#parts.services.admission;
    return { active: a.active, queued: a.queued, limit: a.limit };
  }
  /** Approval requests: list, approve, deny (the CLI's `approvals`, `approve`, `deny`). */
  get approvals(): ApprovalDesk {
    return this.#parts.services.policy.approvals;
  }

  /**
   * Runs one envelope through the whole pipeline and returns its committed receipt. Tool and
   * domain failures are receipts; only a broken store or a closed runtime throws.
   */
  call(envelope: unknown, opts: CallOptions = {}): Promise<Receipt> {
    if (this.#closed) return Promise.reject(new ToolgateError('internal_error', 'runtime is closed'));
    const p = runPipeline(this.#pipeline, envelope, opts);
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p)).catch(() => {});
    return p;
  }

  /**
   * Cancels every running call of a task and refuses its new calls until `resumeTask`; what
   * tools hold for the task (shell sessions) ends too, and so do its live subtasks.
   */
  cancelTask(task: string): void {
    this.#parts.state.running.cancel(task as TaskId);
    this.#track(this.endTask(task));
    // A cancelled task's subtasks end with it (docs/tasks.md); their hosts end their calls.
    if (this.tasks !== null) this.#track(this.tasks.cancelChildren(task as TaskId).catch(() => []));
  }

  /**
   * The task is over (its MCP session ended): tools release what they hold for it, e.g.
   * shell.session kills the task's shells and everything they started. Idempotent.
   */
  endTask(task: string): Promise<void> {
    // Nobody of the ended session can attach again: what it left running without a caller stops now.
    this.#parts.state.effects.abandonTask(task as TaskId);
    return Promise.allSettled(this.#parts.services.registry.tools().map((t) => t.endTask?.(task as TaskId))).then(() => {});
  }

  /** Work that close() must wait for (a task's teardown). */
  #track(p: Promise<unknown>): void {
    this.#teardowns.add(p);
    void p.finally(() => this.#teardowns.delete(p)).catch(() => {});
  }

  resumeTask(task: string): void {
    this.#parts.state.running.resume(task as TaskId);
  }

  getReceipt(id: string): Promise<Receipt | undefined> {
    return this.#parts.services.store.getReceipt(id as ReceiptId);
  }

  listAmbiguous(): Promise<EffectRecord[]> {
    return this.#parts.services.store.listEffects({ state: 'ambiguous' });
  }

  /** Every effect that waits for reconcile (ambiguous, or sent by a runtime that is gone), with its age. */
  listUnsettled(): Promise<UnsettledEntry[]> {
    return listUnsettled(this.#reconcile);
  }

  /**
   * Settles ambiguous effects, and sent ones whose runtime is gone, through each tool's
   * reconcile(); commits a receipt for each settled one.
   */
  async reconcile(): Promise<ReconcileReport> {
    const report = await reconcileEffects(this.#reconcile);
    for (const e of report.entries) this.#parts.services.telemetry.reconciled(e.tool, e.settled, 'reconcile');
    return report;
  }

  /** An operator's settlement of one effect reconcile cannot decide; the reason goes in its receipt. */
  async settle(task: string, effectKey: string, settled: 'completed' | 'released', reason: string): Promise<Receipt> {
    const receipt = await settleEffect(this.#reconcile, task as TaskId, effectKey, settled, reason);
    this.#parts.services.telemetry.reconciled(receipt.tool, settled, 'operator');
    return receipt;
  }

  /** Waits for running calls, then releases the database and the workspace. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // No call can attach any more: an effect nobody waits for stops now, not after the detach grace.
    this.#parts.state.effects.abandonAll();
    // Tools end what they hold (shell sessions) first: a call waiting on a session's command returns then.
    const disposed = Promise.allSettled([...this.#parts.services.registry.tools().map((t) => t.dispose?.()), this.gateway?.close()]);
    await Promise.allSettled([...this.#inflight, this.#sweep, disposed, ...this.#teardowns]);
    try {
      await this.#parts.services.store.close();
      // After the store: the last commits' heads are in; the file gets the final checkpoint.
      await this.audit?.close();
    } finally {
      this.#parts.services.workspace.close();
    }
  }
}

/** Opens a runtime: `await createRuntime({ workspace, store })` (Runtime.open). */
export function createRuntime(opts: RuntimeOptions): Promise<Runtime> {
  return Runtime.open(opts);
}
