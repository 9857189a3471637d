// A "runtime" whose command is held before its release: onSpawn (the intent's durable write)
// never resolves. Once bubblewrap's init is in the run's cgroups it prints the init's pid and
// waits to be killed: a test SIGKILLs it between intent and release.
import { readFileSync } from 'node:fs';
import { Sandbox } from '../../src/sandbox/index.js';
import { childrenOf } from '../../src/sandbox/process-table.js';

const [dir, marker, mode, bwrapPath] = process.argv.slice(2) as [string, string, 'fresh' | 'spare' | 'no-cgroups', string | undefined];
const sb = new Sandbox({ workspace: dir, spare: mode === 'spare', ...(bwrapPath ? { bwrapPath } : {}) });
// A host where no cgroup can be made (cgroup v2 without delegation, docs/shell.md): the sandbox
// then runs without groups, which is what this mode makes of this host. Every controller goes:
// with memory or cpuacct left, the init would still join a group the cgroup sweep ends.
if (mode === 'no-cgroups') for (const c of Object.keys(sb.host.cgroups.bases)) delete (sb.host.cgroups.bases as Record<string, string>)[c];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
let wrapper: number | null = null;
if (mode === 'spare') {
  await sb.run({ argv: ['true'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 60_000 });
  for (let i = 0; i < 2000 && !sb.spare?.ready; i++) await sleep(10);
  wrapper = sb.spare?.pid ?? null;
  if (wrapper === null) throw new Error('no spare');
}
const before = new Set(childrenOf(process.pid));
void sb.run({
  argv: ['sh', '-c', `echo ran > ${dir}/ran-${marker}; sleep 1000`],
  cwd: dir,
  env: { PATH: '/usr/bin:/bin', TG_MARKER: marker },
  timeoutMs: 600_000,
  onSpawn: () => {
    wrapper ??= childrenOf(process.pid).find((p) => !before.has(p)) ?? null;
    return new Promise(() => {});
  },
});
for (let i = 0; i < 2000; i++) {
  const init = wrapper === null ? undefined : childrenOf(wrapper)[0];
  let groups = '';
  try {
    groups = init === undefined ? '' : readFileSync(`/proc/${init}/cgroup`, 'utf8');
  } catch {
    // not yet
  }
  if (mode === 'no-cgroups' ? init !== undefined : /:pids:.*\/toolgate-/.test(groups)) {
    console.log(String(init));
    break;
  }
  await sleep(10);
}
setInterval(() => {}, 1000);
