import { writeFileSync } from 'node:fs';
import { literalWords } from '../resources/index.js';
import { intOption, parse } from './options.js';
import { UsageError, type Command } from './usage.js';

export const conformanceCommand: Command = {
  name: 'conformance',
  summary: 'try an MCP server with the attack and fault families; exit 1 on any escape, unsafe answer, crash or hang',
  help: `toolgate conformance --target 'COMMAND …' | URL --map NAME|MAP.json [--json] [--out FILE] [--bound-ms MS]
                     [--root DIR] [--header 'Name: value' …]

Connects to an MCP server as a client (a command line started over stdio, or a Streamable HTTP
URL) and runs the kit's families against it (docs/conformance.md): path traversal and sibling
prefixes, absolute and encoded paths, symbolic and hard links, special files and big outputs,
ambiguous and overlapping edits, invalid Unicode, redaction canaries, unknown fields and wrong
types, cancellation and signal-ignoring process trees, and a directory swapped for a link with
renameat2(RENAME_EXCHANGE) during reads and writes. The kit makes a fresh root with canaries
outside it; \`{root}\` in the command line or URL is replaced by that root.

  --target CMD|URL  the server: e.g. 'toolgate serve --stdio --workspace {root}' or
                    'npx @modelcontextprotocol/server-filesystem {root}'
  --map NAME|FILE   which tools read, write, edit, list, search and run commands: a shipped map
                    (toolgate, server-filesystem) or a JSON file
  --json            print the scorecard as JSON (every attempt, counts, verdict)
  --out FILE        also write the JSON scorecard to FILE
  --bound-ms MS     how long an ordinary call may take before it counts as hung (default 10000)
  --root DIR        the directory the server serves (needed for a URL target: the server runs
                    already); the kit makes its files in it and its outside folders beside it,
                    and removes what it made
  --header 'N: V'   a header of every HTTP request (e.g. 'Authorization: Bearer …'); repeatable

Exit status: 0 when no attempt escaped, answered unsafely, crashed the server or hung; 1 otherwise,
or when the target cannot be reached (upstream_unavailable); 2 for a usage or map error.`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      target: { type: 'string' },
      map: { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      'bound-ms': { type: 'string' },
      root: { type: 'string' },
      header: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (!values.target) throw new UsageError('--target is required');
    if (!values.map) throw new UsageError('--map is required');
    // Loaded on use: the kit (and fast-check) costs nothing to a CLI that does not run it.
    const { formatScorecard, loadMap, runConformance, SHIPPED_MAPS } = await import('../conformance/index.js');
    const map = SHIPPED_MAPS[values.map] ?? loadMap(values.map);
    const isUrl = /^https?:\/\//.test(values.target);
    const argvOfTarget = isUrl ? null : await literalWords(values.target);
    if (!isUrl && (argvOfTarget === null || argvOfTarget.length === 0)) throw new UsageError('--target takes a URL or one plain command line of literal words (no pipes, redirections or variables)');
    if (isUrl && values.root === undefined) throw new UsageError('a URL target needs --root DIR: the directory that server serves (the kit makes its ground around it)');
    const headers: Record<string, string> = {};
    for (const h of values.header ?? []) {
      const colon = h.indexOf(':');
      if (colon <= 0) throw new UsageError(`--header takes "Name: value", not ${JSON.stringify(h)}`);
      headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
    }
    const boundMs = intOption(values['bound-ms'], 'bound-ms');
    const card = await runConformance(isUrl ? { url: values.target, headers } : { argv: argvOfTarget ?? [] }, map, {
      ...(boundMs !== undefined ? { boundMs } : {}),
      ...(values.root !== undefined ? { root: values.root } : {}),
    });
    const json = JSON.stringify(card, null, 2);
    if (values.out) writeFileSync(values.out, json + '\n');
    io.out(values.json ? json : formatScorecard(card));
    return card.verdict === 'pass' ? 0 : 1;
  },
};
