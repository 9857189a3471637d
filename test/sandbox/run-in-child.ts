// Runs a long sandboxed command from a separate Node process, so a test can SIGKILL this
// "runtime" mid-call and look for survivors.
import { Sandbox } from '../../src/sandbox/index.js';

const [dir, marker] = process.argv.slice(2) as [string, string];
const sb = new Sandbox({ workspace: dir });
await sb.run({
  argv: ['sh', '-c', 'setsid sleep 1000 & sleep 1001 & wait'],
  cwd: dir,
  env: { PATH: '/usr/bin:/bin', TG_MARKER: marker },
  timeoutMs: 60_000,
});
