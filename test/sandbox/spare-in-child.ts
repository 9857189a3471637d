// A "runtime" that runs one command, waits for its spare wrapper, prints the spare's pid and
// waits to be killed: a test SIGKILLs it and looks for the spare.
import { Sandbox } from '../../src/sandbox/index.js';

const [dir] = process.argv.slice(2) as [string];
const sb = new Sandbox({ workspace: dir, spare: true });
await sb.run({ argv: ['true'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 60_000 });
for (let i = 0; i < 1000 && !sb.spare?.ready; i++) await new Promise((r) => setTimeout(r, 10));
console.log(String(sb.spare?.pid ?? 'none'));
setInterval(() => {}, 1000);
