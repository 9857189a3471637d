// A git process that talks to one authorized destination and nowhere else: the pinned URL and
// configuration (invocation.ts), a scratch repository with no config of the workspace's, the
// call's credential header, every run supervised (run.ts).
import type { AuthorizedDestination } from '../../resources/index.js';
import { dialUrl, gitEnvironment, pinnedConfig } from './invocation.js';
import { runGitProcess, scratchRepository, type GitRun } from './run.js';

export type ObjectFormat = 'sha1' | 'sha256';

export interface RunOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The workspace's object directory (push reads from it, fetch stores into it); null: none. */
  readonly objects: string | null;
  readonly objectFormat: ObjectFormat;
  readonly onSpawn?: () => Promise<void>;
}

export interface RemoteRef {
  readonly ref: string;
  /** null: the remote has no such ref. */
  readonly oid: string | null;
}

export class RemoteConnection {
  constructor(
    readonly destination: AuthorizedDestination,
    /** `Header: value` from configuration, or null. */
    private readonly header: string | null,
    private readonly secrets: readonly string[],
  ) {}

  /** What git is told to dial (the address itself for git://). */
  get url(): string {
    return dialUrl(this.destination);
  }

  /** `git <args…>` where `{url}` in args is replaced by the pinned URL. */
  async git(args: readonly string[], o: RunOptions): Promise<GitRun> {
    return this.#inScratch(o, (run) => run(args, o.onSpawn));
  }

  /**
   * Fetches `refs` into the scratch repository (objects into `o.objects`) and reads back what
   * each became there: the ids the remote sent, not a second look at the remote.
   */
  async fetch(refs: readonly string[], o: RunOptions): Promise<{ readonly run: GitRun; readonly fetched: ReadonlyMap<string, string> | null }> {
    return this.#inScratch(o, async (run) => {
      const r = await run(['fetch', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--no-auto-gc', '{url}', ...refs.map((ref, i) => `+${ref}:refs/toolgate/${i}`)]);
      if (r.reason !== 'exited' || r.exit_code !== 0) return { run: r, fetched: null };
      const list = await run(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/toolgate/']);
      const fetched = new Map<string, string>();
      for (const line of list.stdout.split('\n')) {
        const m = /^([0-9a-f]{40}|[0-9a-f]{64}) refs\/toolgate\/(\d+)$/.exec(line);
        const ref = m ? refs[Number(m[2])] : undefined;
        if (m && ref !== undefined) fetched.set(ref, m[1] as string);
      }
      return { run: r, fetched };
    });
  }

  async #inScratch<T>(o: RunOptions, body: (run: (args: readonly string[], onSpawn?: () => Promise<void>) => Promise<GitRun>) => Promise<T>): Promise<T> {
    const scratch = scratchRepository(o.objectFormat);
    try {
      const env = gitEnvironment({
        home: scratch.home,
        gitDir: scratch.dir,
        objects: o.objects,
        scheme: this.destination.scheme,
        config: pinnedConfig(this.destination, this.header),
        path: process.env.PATH ?? '/usr/bin:/bin',
      });
      return await body((args, onSpawn) =>
        runGitProcess({
          args: args.map((a) => (a === '{url}' ? this.url : a)),
          env,
          cwd: scratch.dir,
          signal: o.signal,
          timeoutMs: o.timeoutMs,
          secrets: this.secrets,
          ...(onSpawn ? { onSpawn } : {}),
        }),
      );
    } finally {
      scratch.dispose();
    }
  }

  /**
   * The remote's value of each ref (exact names: ls-remote's patterns match ref tails, so
   * `refs/heads/main` would also match `refs/remotes/x/refs/heads/main`). null when the run failed.
   */
  async lsRemote(refs: readonly string[], o: Omit<RunOptions, 'objects' | 'onSpawn'>): Promise<{ readonly refs: RemoteRef[]; readonly run: GitRun } | { readonly refs: null; readonly run: GitRun }> {
    const run = await this.git(['ls-remote', '--refs', '{url}', ...refs], { ...o, objects: null });
    if (run.reason !== 'exited' || run.exit_code !== 0) return { refs: null, run };
    const seen = new Map<string, string>();
    for (const line of run.stdout.split('\n')) {
      const m = /^([0-9a-f]{40}|[0-9a-f]{64})\t(.+)$/.exec(line);
      if (m) seen.set(m[2] as string, m[1] as string);
    }
    return { refs: refs.map((ref) => ({ ref, oid: seen.get(ref) ?? null })), run };
  }
}
