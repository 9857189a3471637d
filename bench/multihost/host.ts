// One benchmark host: a runtime in its own process on the store the driver names, told over IPC
// to run a batch of fs.read calls (the loop runs here, so IPC is not what is measured).
import { createRuntime } from '../../src/runtime/index.js';
import { postgresStore, sqliteStore, type StoreFactory } from '../../src/store/index.js';

export interface BenchHostConfig {
  readonly workspace: string;
  readonly stateDir: string;
  readonly store: { readonly kind: 'postgres'; readonly url: string } | { readonly kind: 'sqlite'; readonly dir: string };
  readonly name: string;
}

export interface Batch {
  readonly n: number;
  readonly inFlight: number;
  readonly round: number;
}

const config = JSON.parse(process.argv[2] as string) as BenchHostConfig;
const store: StoreFactory = config.store.kind === 'postgres' ? postgresStore({ url: config.store.url }) : ((dir) => () => sqliteStore()({ stateDir: dir }))(config.store.dir);
const rt = await createRuntime({ workspace: config.workspace, stateDir: config.stateDir, store });

// One task per agent: 16 agents per host, each host its own tasks (as separate agents would be).
const env = (round: number, i: number) => ({ protocol_version: 'tool-call.v1', task_id: `${config.name}-r${round}-${i % 16}`, tool: 'fs.read', arguments: { path: 'four.txt' } });

async function run(b: Batch): Promise<{ ms: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: b.inFlight }, async () => {
      while (next < b.n) {
        const r = await rt.call(env(b.round, next++));
        if (r.status !== 'succeeded') failed++;
      }
    }),
  );
  return { ms: performance.now() - t0, failed };
}

process.on('message', (m: { op: 'run'; batch: Batch } | { op: 'close' }) => {
  if (m.op === 'close') {
    void rt.close().then(() => process.exit(0));
    return;
  }
  void run(m.batch).then((r) => process.send?.({ kind: 'done', ...r }));
});
process.send?.({ kind: 'ready' });
