// After a lost answer or a crash between markSent and the receipt: read the ref at the remote,
// at the address the push went to (no new lookup), and compare it with what the intent recorded.
// Never a second push: a released effect is pushed again only by a retry, through the pipeline.
import type { ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { classifyAddress, normalizeUrl } from '../../resources/index.js';
import { GIT_REMOTE_SCHEMES, remoteForUrl, type ConfiguredRemote } from './config.js';
import { RemoteConnection } from './connection.js';

/** What execute recorded at markSent: where, which ref, from which value to which commit. */
export interface PushIntent {
  readonly url: string;
  readonly address: string;
  readonly port: number;
  readonly servername: string | null;
  readonly ref: string;
  /** The remote's value when it was read before the push; null: the ref did not exist. */
  readonly old: string | null;
  readonly new: string;
  readonly force: boolean;
  readonly [k: string]: unknown;
}

const OID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

function intentOf(raw: unknown): PushIntent | null {
  if (raw === null || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.url !== 'string' || typeof r.address !== 'string' || typeof r.port !== 'number' || typeof r.ref !== 'string' || typeof r.new !== 'string' || !OID.test(r.new)) return null;
  if (r.old !== null && (typeof r.old !== 'string' || !OID.test(r.old))) return null;
  return { url: r.url, address: r.address, port: r.port, servername: typeof r.servername === 'string' ? r.servername : null, ref: r.ref, old: r.old, new: r.new, force: r.force === true };
}

const RECONCILE_MS = 30_000;

export async function reconcileGitPush(ctx: ReconcileContext, remotes: readonly ConfiguredRemote[]): Promise<ReconcileVerdict> {
  const intent = intentOf(ctx.intent);
  if (intent === null) return { settled: 'unknown', reason: 'no push intent was recorded for this effect' };
  const target = normalizeUrl(intent.url, GIT_REMOTE_SCHEMES);
  const address = classifyAddress(intent.address);
  const destination = { ...target, addresses: [address], connectTo: address, servername: intent.servername };
  const configured = remoteForUrl(remotes, target.url);
  const connection = new RemoteConnection(destination, target.scheme === 'git' ? null : (configured?.header ?? null), configured?.secrets ?? []);
  const read = await connection.lsRemote([intent.ref], { signal: AbortSignal.timeout(RECONCILE_MS), timeoutMs: RECONCILE_MS, objectFormat: intent.new.length === 64 ? 'sha256' : 'sha1' });
  if (read.refs === null) return { settled: 'unknown', reason: `ls-remote of ${intent.ref} at ${intent.url} (${intent.address}) failed (${read.run.reason}, exit ${read.run.exit_code}): ${read.run.stderr.trim().slice(0, 300)}` };
  const now = read.refs[0]?.oid ?? null;
  const evidence = { url: intent.url, address: intent.address, ref: intent.ref, old: intent.old, new: intent.new, found: now };
  if (now === intent.new) {
    return {
      settled: 'completed',
      evidence,
      result: { url: intent.url, ref: intent.ref, old: intent.old, new: intent.new, forced: intent.force, outcome: intent.old === null ? 'created' : 'updated', reconciled: evidence },
    };
  }
  // The push is a compare-and-swap from `old`: the ref still there means it never moved.
  if (now === intent.old) return { settled: 'released', evidence };
  return { settled: 'unknown', reason: `${intent.ref} at ${intent.url} is ${now ?? 'absent'}: neither the commit pushed (${intent.new}) nor the value it replaced (${intent.old ?? 'absent'}); someone else moved it` };
}
