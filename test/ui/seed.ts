// A real runtime with real receipts for the web view's tests and screenshots: file writes and a
// patch (with its diff), a command whose output is truncated and redacted, a policy denial
// repeated until it is refused as repeated_denial, a pending approval, and an ambiguous effect
// (probes whose deadline passes after they marked their effect sent).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_POLICY_SOURCE } from '../../src/policy/index.js';
import type { Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { probeTool } from '../support/probe-tools.js';

export const UI_POLICY = `
@id("ui.vendor-read-only")
@reason("vendor/ is read-only: change the dependency instead")
forbid (principal, action, resource is Toolgate::Path)
when { resource.path like "vendor/*" && resource.access != "read" };

@id("ui.deploy-needs-approval")
@approval("required")
@reason("changes under deploy/ need a person's approval")
permit (principal, action, resource is Toolgate::Path)
when { resource.path like "deploy/*" && resource.access != "read" };`;

export const TASKS = { build: 'task-build', deploy: 'task-deploy', flaky: 'task-flaky' } as const;

export interface Seeded {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly ledger: string;
  /** The call that waits for approval, to be re-issued once approved. */
  readonly deployCall: Record<string, unknown>;
  readonly approvalId: string;
  readonly receipts: Readonly<Record<string, Receipt>>;
  done(): Promise<void>;
}

export async function seededRuntime(): Promise<Seeded> {
  const dirs = tempDirs('tg-ui');
  const ledger = join(dirs.base, 'ledger');
  mkdirSync(join(dirs.workspace, 'vendor'));
  writeFileSync(join(dirs.workspace, 'vendor', 'lib.js'), 'export const v = 1;\n');
  const rt = await createRuntime({
    workspace: dirs.workspace,
    stateDir: dirs.state,
    tools: [probeTool({ ledger }), ...builtinTools()],
    policies: [DEFAULT_POLICY_SOURCE, { name: 'ui.cedar', text: UI_POLICY }],
    repeatedDenialLimit: 2,
  });
  const call = (task: string, tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Receipt> =>
    rt.call(envelope(tool, args, { task_id: task, ...extra }));
  const receipts: Record<string, Receipt> = {};
  try {
    const b = TASKS.build;
    receipts['write'] = await call(b, 'fs.write', { path: 'src/app.ts', content: 'export function greet(name: string) {\n  return "hello " + name;\n}\n', create_parents: true });
    receipts['patch'] = await call(b, 'fs.patch', { files: [{ path: 'src/app.ts', edits: [{ old: 'return "hello " + name;', new: 'return `hello, ${name}!`;' }] }] });
    receipts['shell'] = await call(b, 'shell.exec', { argv: ['sh', '-c', 'echo key=AKIAIOSFODNN7EXAMPLE; seq 1 100000'] });
    for (let i = 1; i <= 3; i++) receipts[`vendor${i}`] = await call(b, 'fs.write', { path: 'vendor/lib.js', content: 'export const v = 2;\n', mode: 'create_or_replace' });
    const deployCall = envelope('fs.write', { path: 'deploy/prod.json', content: '{"replicas": 3}\n', create_parents: true }, { task_id: TASKS.deploy });
    receipts['deploy'] = await rt.call(deployCall);
    const approvalId = receipts['deploy'].error?.data['approval_id'];
    if (typeof approvalId !== 'string') throw new Error(`the deploy call did not ask for approval: ${JSON.stringify(receipts['deploy'].error)}`);
    // Two effects whose deadline passes after they were sent: reconcile can tell for the first (the
    // probe finds its ledger line), not for the second (a person settles it by hand).
    const deadline = new Date(Date.now() + 4_000).toISOString();
    [receipts['flaky'], receipts['unknowable']] = await Promise.all([
      call(TASKS.flaky, 'test.effect', { label: 'publish-1', after_ms: 60_000 }, { idempotency_key: 'publish-1', deadline }),
      call(TASKS.flaky, 'test.effect', { label: 'publish-2', after_ms: 60_000, unknown_on_reconcile: true }, { idempotency_key: 'publish-2', deadline }),
    ]);
    return {
      rt,
      workspace: dirs.workspace,
      ledger,
      deployCall,
      approvalId,
      receipts,
      done: async () => {
        await rt.close();
        dirs.cleanup();
      },
    };
  } catch (e) {
    await rt.close();
    dirs.cleanup();
    throw e;
  }
}
