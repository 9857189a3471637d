#!/usr/bin/env node
import { StartupError, TOOLGATE_VERSION, ToolgateError } from '../protocol/index.js';
import { approvalsCommand, approveCommand, denyCommand } from './approvals.js';
import { auditCommand } from './audit.js';
import { callCommand } from './call.js';
import { receiptsCommand } from './receipts.js';
import { reconcileCommand } from './reconcile.js';
import { registryCommand } from './registry.js';
import { undoCommand } from './undo.js';
import { serveCommand } from './serve.js';
import { doctorCommand } from './doctor.js';
import { uiCommand } from './ui.js';
import { conformanceCommand } from './conformance.js';
import { taskCommand } from './task.js';
import { versionCommand } from './version.js';
import { UsageError, type Command, type Io } from './usage.js';

/** The one list of commands. */
export const COMMANDS: readonly Command[] = [serveCommand, callCommand, receiptsCommand, approvalsCommand, approveCommand, denyCommand, auditCommand, reconcileCommand, registryCommand, undoCommand, uiCommand, taskCommand, conformanceCommand, doctorCommand, versionCommand];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'toolgate — a contract layer between coding agents and the tools they call',
    '',
    'Usage: toolgate COMMAND [options]   (toolgate COMMAND --help for each)',
    '',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

/**
 * The one way a start-up error (bad command line, configuration, grant or policy) is printed:
 * `toolgate CMD: CODE: message`, the help after a usage error, exit code 2.
 */
function printStartupError(io: Io, prefix: string, e: StartupError, help: string): number {
  io.err(`${prefix}: ${e.code}: ${e.message}${e.code === 'usage' ? `\n\n${help}` : ''}`);
  return 2;
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(overview());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    io.out(`toolgate ${TOOLGATE_VERSION}`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    return printStartupError(io, 'toolgate', new UsageError(`unknown command ${name}`), overview());
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (StartupError.isInstance(e)) return printStartupError(io, `toolgate ${command.name}`, e, command.help);
    if (ToolgateError.isInstance(e)) {
      io.err(JSON.stringify({ error: e.toBody() }, null, 2));
      return 1;
    }
    throw e;
  }
}

const io: Io = {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
};

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`toolgate: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
