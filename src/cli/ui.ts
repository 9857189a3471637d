import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { serveUi } from '../ui/index.js';
import { intOption, parse, RUNTIME_OPTIONS } from './options.js';
import { openRuntimeWithPolicy } from './policy-files.js';
import { portFault, tokenFileFault } from './startup-faults.js';
import { UsageError, type Command } from './usage.js';

export const uiCommand: Command = {
  name: 'ui',
  summary: 'the web view: tasks, receipts, approvals, ambiguous effects, audit (loopback)',
  help: `toolgate ui [--port PORT] [--host 127.0.0.1|::1] [--token-file FILE] [--by NAME]

Serves the operator's web view on loopback (docs/operating.md "Web view"): tasks and each
task's timeline of receipts, pending approvals to approve or deny, denials, ambiguous effects
to reconcile or settle, and the audit chain's verdict. It reads the store and writes only
approval decisions and settlements. Prints the address to open on stderr: the token is in its
fragment (#token=…), which the browser never sends; every API request needs it as a bearer
token. Ends on SIGINT or SIGTERM.

  --port PORT        port (default 0: any free one)
  --host HOST        127.0.0.1 (default) or ::1; the view never listens beyond loopback
  --token-file FILE  the token (at least 16 characters); default: a new random one per start
  --by NAME          who approvals decided here are recorded as (default: $USER)

Options: --workspace DIR, --state-dir DIR, --config FILE, --store-url URL (as for call)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      ...RUNTIME_OPTIONS,
      port: { type: 'string' },
      host: { type: 'string' },
      'token-file': { type: 'string' },
      by: { type: 'string' },
    });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const port = intOption(values.port, 'port') ?? 0;
    if (port > 65535) throw new UsageError('--port takes a port number (0-65535)');
    const host = values.host ?? '127.0.0.1';
    if (host !== '127.0.0.1' && host !== '::1') throw new UsageError('--host takes 127.0.0.1 or ::1: the web view listens on loopback only');
    let token = randomBytes(32).toString('base64url');
    if (values['token-file'] !== undefined) {
      try {
        token = readFileSync(values['token-file'], 'utf8').trim();
      } catch (e) {
        throw tokenFileFault(values['token-file'], e);
      }
      if (token.length < 16) throw new UsageError('--token-file: the token must be at least 16 characters');
    }
    const rt = await openRuntimeWithPolicy(values);
    try {
      const serving = await serveUi(rt, {
        port,
        host,
        token,
        operator: values.by ?? process.env['USER'] ?? 'ui',
        onError: (e) => io.err(`toolgate ui: ${e.message}`),
      }).catch((e: unknown) => {
        throw portFault(host, port, e);
      });
      io.err(`toolgate: web view on ${serving.openUrl}`);
      let stop: (s: NodeJS.Signals) => void = () => {};
      const signal = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await signal.finally(() => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      });
      io.err(`toolgate: ${await signal}: closing`);
      await serving.close();
      return 0;
    } finally {
      await rt.close();
    }
  },
};
