// `toolgate serve` as a process, before the lead registers it in COMMANDS: argv as for the command.
import { serveCommand } from '../../src/cli/serve.js';

process.exitCode = await serveCommand.run(process.argv.slice(2), {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
});
