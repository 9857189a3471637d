// One Toolgate host in its own process: a runtime on its own workspace copy and state dir, on
// the store the parent names (PostgreSQL by URL, or one SQLite file shared by folder), with the
// host name TOOLGATE_HOST_ID the parent set. It takes requests over IPC (host.ts is the other
// end) and can be told to stop at a chosen point of its next call:
//   kill-at-commit   SIGKILL itself when the call's receipt is about to be committed (after the effect);
//   kill-after-sent  SIGKILL itself once the intent is durable, before the effect;
//   hold-at-commit   say 'at-commit' and wait for 'resume' before the commit (the parent cuts the database meanwhile).
// The kills are real (no cleanup runs); only the moment is chosen.
import { createRuntime, type TaskGrant } from '../../src/runtime/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { postgresStore, sqliteStore, type StoreFactory } from '../../src/store/index.js';
import { ToolgateError } from '../../src/protocol/index.js';
import { probeTool } from '../support/probe-tools.js';
import type { HostConfig, HostReply, HostRequest } from './protocol.js';

const config = JSON.parse(process.argv[2] as string) as HostConfig;

function storeOf(c: HostConfig['store']): StoreFactory {
  switch (c.kind) {
    case 'sqlite':
      // Every host opens the one file in c.dir, whatever its own state dir.
      return () => sqliteStore()({ stateDir: c.dir });
    case 'postgres':
      // Its connections carry the host's name, so a test can cut exactly this host's.
      return postgresStore({ url: c.url, applicationName: `toolgate ${process.env['TOOLGATE_HOST_ID'] ?? ''}`.trim() });
  }
}

const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] };
const rt = await createRuntime({
  workspace: config.workspace,
  stateDir: config.stateDir,
  store: storeOf(config.store),
  tools: [probeTool({ ledger: config.ledger }), ...builtinTools()],
  grant: config.grant ?? GRANT,
  ...(config.policy !== undefined ? { policies: [{ name: 'test.cedar', text: config.policy }] } : {}),
  ...(config.artifactsFolder !== undefined ? { artifacts: { kind: 'folder' as const, path: config.artifactsFolder } } : {}),
});

const send = (m: HostReply | { kind: 'at-commit' }): void => void process.send?.(m);
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

/** Arms a stop in the store's path of the next call (own properties shadow the store's methods). */
function arm(point: NonNullable<Extract<HostRequest, { op: 'call' }>['stop']>): void {
  const store = rt.store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const commit = store['commit'] as (...a: unknown[]) => Promise<unknown>;
  const markSent = store['markSent'] as (...a: unknown[]) => Promise<unknown>;
  switch (point) {
    case 'kill-at-commit':
      store['commit'] = die;
      return;
    case 'kill-after-sent':
      store['markSent'] = async (...a) => {
        await markSent.apply(rt.store, a);
        die();
      };
      return;
    case 'hold-at-commit':
      store['commit'] = async (...a) => {
        delete store['commit'];
        send({ kind: 'at-commit' });
        await new Promise<void>((resolve) => resume.push(resolve));
        return commit.apply(rt.store, a);
      };
      return;
  }
}
const resume: (() => void)[] = [];

async function answer(req: HostRequest): Promise<unknown> {
  switch (req.op) {
    case 'call':
      if (req.stop) arm(req.stop);
      return rt.call(req.envelope);
    case 'resume':
      for (const r of resume.splice(0)) r();
      return null;
    case 'pending-approvals':
      return (await rt.approvals.list({ status: 'pending' }, Date.now())).map((a) => a.id);
    case 'approve':
      return (await rt.approvals.approve(req.id, req.by, Date.now())).status;
    case 'usage':
      return rt.policy.budgets.usage(req.task as never);
    case 'reconcile':
      return rt.reconcile();
    case 'verify':
      return rt.store.verifyChain();
    case 'close':
      await rt.close();
      setImmediate(() => process.exit(0));
      return null;
  }
}

process.on('message', (m: { id: number; req: HostRequest }) => {
  answer(m.req).then(
    (value) => send({ kind: 'reply', id: m.id, ok: true, value }),
    (e: unknown) =>
      send({
        kind: 'reply',
        id: m.id,
        ok: false,
        error: ToolgateError.isInstance(e) ? { code: e.code, message: e.message } : { code: 'defect', message: e instanceof Error ? e.stack ?? e.message : String(e) },
      }),
  );
});
send({ kind: 'ready' });
