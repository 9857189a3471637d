// The Prometheus metrics of docs/operating.md: counters and histograms fed by each ended call
// (the runtime's CallObserver), gauges read from the runtime when scraped. One registry per
// instance, never prom-client's global one: a process (or a test) may run several runtimes.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ErrorCode, Resource } from '../protocol/index.js';
import type { CallObserver, EndedCall, Runtime, SettledBy, Settlement } from '../runtime/index.js';

/** Refusals of the call's form, before policy: the "validation" rate. */
const VALIDATION_CODES: ReadonlySet<ErrorCode> = new Set(['invalid_request', 'unsupported_protocol_version', 'unknown_tool', 'tool_version_unavailable', 'tool_version_retired', 'invalid_arguments', 'invalid_resource']);
/** A mutation refused because the file is not what the call expected: preimage mismatches and patch conflicts. */
const CONFLICT_CODES: ReadonlySet<ErrorCode> = new Set(['precondition_failed', 'overlapping_edits', 'no_match', 'ambiguous_match', 'already_exists', 'undo_conflict']);
/** Refusals that name their resource's kind when the call never got a normalized action. */
const KIND_OF_CODE: Partial<Record<ErrorCode, Resource['kind']>> = { path_escape: 'path', secret_path: 'path', destination_refused: 'host', connector_not_configured: 'host' };
/** Codes whose tool or version label would be the caller's own text: one series for them all (bounded cardinality). */
const UNTRUSTED_NAME: ReadonlySet<ErrorCode> = new Set(['invalid_request', 'unsupported_protocol_version', 'unknown_tool', 'tool_version_unavailable', 'tool_version_retired']);
const OTHER = '_unknown';

/** Seconds, from 100 µs (a stage of a read) to 5 minutes (a long shell.exec). */
const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export interface MetricsOptions {
  /** Added to every series (e.g. `{ instance: 'host-a' }`). */
  readonly defaultLabels?: Readonly<Record<string, string>>;
}

export class ToolgateMetrics implements CallObserver {
  readonly registry = new Registry();
  readonly #calls: Counter;
  readonly #validation: Counter;
  readonly #denials: Counter;
  readonly #callSeconds: Histogram;
  readonly #stageSeconds: Histogram;
  readonly #timeouts: Counter;
  readonly #cancellations: Counter;
  readonly #forced: Counter;
  readonly #ambiguousCalls: Counter;
  readonly #reconciliations: Counter;
  readonly #truncated: Counter;
  readonly #artifactBytes: Counter;
  readonly #deniedResources: Counter;
  readonly #conflicts: Counter;
  readonly #connector: Counter;
  #runtime: Runtime | null = null;
  #unsettledRead: { readonly at: number; readonly unsettled: Promise<{ count: number; oldest: number }> } | null = null;

  constructor(opts: MetricsOptions = {}) {
    const registers = [this.registry];
    if (opts.defaultLabels) this.registry.setDefaultLabels({ ...opts.defaultLabels });
    const counter = (name: string, help: string, labelNames: string[]): Counter => new Counter({ name, help, labelNames, registers });
    this.#calls = counter('toolgate_calls_total', 'Calls ended, by tool, version and receipt status', ['tool', 'version', 'status']);
    this.#validation = counter('toolgate_validation_failures_total', 'Calls refused for their form (envelope, tool, arguments, resources), by tool, version and code', ['tool', 'version', 'code']);
    this.#denials = counter('toolgate_denials_total', 'Calls denied (policy, approval, budget, path, destination), by tool, version and code', ['tool', 'version', 'code']);
    this.#callSeconds = new Histogram({ name: 'toolgate_call_duration_seconds', help: 'Wall time of a call, arrival to committed receipt, by tool and status', labelNames: ['tool', 'status'], buckets: BUCKETS, registers });
    this.#stageSeconds = new Histogram({ name: 'toolgate_stage_duration_seconds', help: 'Wall time of each pipeline stage (admit is the wait for a slot), by tool and stage', labelNames: ['tool', 'stage'], buckets: BUCKETS, registers });
    this.#timeouts = counter('toolgate_timeouts_total', 'Calls that ran out of time: kind deadline (the call\'s), timeout (the tool\'s own), queue (expired waiting for a slot)', ['tool', 'kind']);
    this.#cancellations = counter('toolgate_cancellations_total', 'Calls cancelled, by who cancelled (client, task)', ['tool', 'by']);
    this.#forced = counter('toolgate_forced_terminations_total', 'Work stopped by force: abandoned (a tool that did not stop within the grace after its signal), background (processes a command left running, killed at teardown)', ['tool', 'reason']);
    this.#ambiguousCalls = counter('toolgate_ambiguous_effects_total', 'Calls that ended with an ambiguous effect (sent, outcome unknown)', ['tool']);
    this.#reconciliations = counter('toolgate_reconciliations_total', 'Ambiguous effects examined, by outcome (completed, released, unknown) and by whom (retry, reconcile, operator)', ['tool', 'outcome', 'by']);
    this.#truncated = counter('toolgate_truncated_results_total', 'Results cut at a bound (with a continuation)', ['tool']);
    this.#artifactBytes = counter('toolgate_artifact_bytes_total', 'Bytes of the artifacts receipts name (large outputs, collected files, sent bodies)', ['tool']);
    this.#deniedResources = counter('toolgate_denied_resource_attempts_total', 'Denied calls by the kind of resource they asked for (path: filesystem, host: network, ref: git)', ['tool', 'resource_kind', 'code']);
    this.#conflicts = counter('toolgate_mutation_conflicts_total', 'Mutations refused because the file was not as expected: precondition_failed is a preimage mismatch, the others patch conflicts', ['tool', 'code']);
    this.#connector = counter('toolgate_connector_effects_total', 'Calls that reach beyond the machine (effect class network or irreversible), by destination host, effect class, decision and status', ['tool', 'destination', 'effect_class', 'decision', 'status']);
    const gauge = (name: string, help: string, read: (rt: Runtime) => number | Promise<number>): Gauge => {
      const g: Gauge = new Gauge({
        name,
        help,
        registers,
        collect: async () => {
          const rt = this.#runtime;
          if (rt !== null) g.set(await read(rt));
        },
      });
      return g;
    };
    gauge('toolgate_admission_in_flight', 'Calls holding a concurrency slot (executing)', (rt) => rt.load.active);
    gauge('toolgate_admission_queued', 'Calls waiting for a concurrency slot', (rt) => rt.load.queued);
    gauge('toolgate_admission_limit', 'Concurrency slots (limits.concurrency)', (rt) => rt.load.limit);
    // Both gauges come from one store read: prom-client collects them concurrently, so the read
    // is shared as a promise within a scrape (scrape() starts a fresh one; a caller of
    // registry.metrics() itself sees a read at most 250 ms old).
    const waiting = (rt: Runtime): Promise<{ count: number; oldest: number }> => {
      const now = performance.now();
      let read = this.#unsettledRead;
      if (read === null || now - read.at > 250) {
        const unsettled = rt.listUnsettled().then((all) => {
          const list = all.filter((e) => e.state === 'ambiguous' || !e.owner_alive);
          return { count: list.length, oldest: list.reduce((m, e) => Math.max(m, e.age_ms), 0) / 1000 };
        });
        read = this.#unsettledRead = { at: now, unsettled };
      }
      return read.unsettled;
    };
    gauge('toolgate_ambiguous_effects', 'Effects waiting for reconcile now (ambiguous, or sent by a runtime that is gone)', async (rt) => (await waiting(rt)).count);
    gauge('toolgate_ambiguous_effect_oldest_age_seconds', 'Age of the oldest effect waiting for reconcile (0 when none)', async (rt) => (await waiting(rt)).oldest);
  }

  /** The runtime whose load and unsettled effects the gauges read at each scrape. */
  watch(runtime: Runtime): void {
    this.#runtime = runtime;
  }

  /** The text exposition format, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    this.#unsettledRead = null;
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  callEnded(call: EndedCall): void {
    const r = call.receipt;
    const code = r.error?.code ?? null;
    const untrusted = code !== null && UNTRUSTED_NAME.has(code);
    const tool = untrusted ? OTHER : r.tool;
    const version = untrusted ? OTHER : (r.tool_version ?? '');
    this.#calls.inc({ tool, version, status: r.status });
    this.#callSeconds.observe({ tool, status: r.status }, (call.end - call.start) / 1000);
    for (const s of call.stages) this.#stageSeconds.observe({ tool, stage: s.stage }, (s.end - s.start) / 1000);
    // A replay answers with an earlier call's receipt: that call was counted, its effect too.
    if (r.replay === true) return;
    if (code !== null && VALIDATION_CODES.has(code)) this.#validation.inc({ tool, version, code });
    if (r.status === 'denied' && code !== null) {
      this.#denials.inc({ tool, version, code });
      const kinds = new Set<string>((r.normalized_action?.resources ?? []).map((x) => x.kind));
      const byCode = KIND_OF_CODE[code];
      if (byCode !== undefined) kinds.add(byCode);
      if (kinds.size === 0) kinds.add('tool');
      for (const k of kinds) this.#deniedResources.inc({ tool, resource_kind: k, code });
    }
    if (code !== null && CONFLICT_CODES.has(code)) this.#conflicts.inc({ tool, code });
    const data = (r.error?.data ?? {}) as Readonly<Record<string, unknown>>;
    if (r.status === 'timed_out' || r.status === 'expired' || (r.status === 'ambiguous' && (data['reason'] === 'deadline' || data['reason'] === 'timeout'))) {
      const kind = data['phase'] === 'queue' ? 'queue' : data['reason'] === 'timeout' ? 'timeout' : 'deadline';
      this.#timeouts.inc({ tool, kind });
    }
    if (r.status === 'cancelled' || (r.status === 'ambiguous' && code === 'cancelled')) this.#cancellations.inc({ tool, by: data['by'] === 'task' ? 'task' : 'client' });
    if (data['tool_stopped'] === false) this.#forced.inc({ tool, reason: 'abandoned' });
    const killed = backgroundKilled(r.result);
    if (killed > 0) this.#forced.inc({ tool, reason: 'background' }, killed);
    if (r.status === 'ambiguous') this.#ambiguousCalls.inc({ tool });
    if (r.truncated) this.#truncated.inc({ tool });
    const bytes = r.artifacts.reduce((n, a) => n + a.bytes, 0);
    if (bytes > 0) this.#artifactBytes.inc({ tool }, bytes);
    const action = r.normalized_action;
    if (action !== null && action.effect_class !== 'read' && action.effect_class !== 'write' && action.effect_class !== 'execute' && r.decision?.outcome === 'allow') {
      for (const h of action.resources) {
        if (h.kind !== 'host') continue;
        const destination = h.port === null ? h.host : `${h.host}:${h.port}`;
        this.#connector.inc({ tool, destination, effect_class: action.effect_class, decision: r.decision.determining.some((d) => d.startsWith('approval:')) ? 'approved' : 'allowed', status: r.status });
      }
    }
  }

  reconciled(tool: string, settled: Settlement, by: SettledBy): void {
    this.#reconciliations.inc({ tool, outcome: settled, by });
  }
}

/** shell.exec's `killed_after_exit`: background processes teardown killed. */
function backgroundKilled(result: unknown): number {
  if (typeof result !== 'object' || result === null) return 0;
  const n = (result as Record<string, unknown>)['killed_after_exit'];
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}
