import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffManifests, formatDiff, parseManifest, Registry, type Manifest } from '../registry/index.js';
import { builtinTools } from '../tools/index.js';
import { configPath, loadConfig } from './config.js';
import { parse } from './options.js';
import { UsageError, type Command } from './usage.js';

export const registryCommand: Command = {
  name: 'registry',
  summary: 'export the registry revision, or diff two exports',
  help: `toolgate registry export [--out FILE]
toolgate registry diff OLD.json NEW.json [--json]
toolgate registry drift [--state-dir DIR | --config FILE] [--json]

export writes the built-in registry revision (every tool entry with its schemas) as JSON.
diff classifies each change as compatible or breaking; exit 1 when any change is breaking.
drift lists the changes of upstream MCP servers' tools the gateway recorded in the state dir
(docs/gateway.md), each with the two manifest files to give registry diff.`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      out: { type: 'string' },
      json: { type: 'boolean' },
      'state-dir': { type: 'string' },
      config: { type: 'string' },
      workspace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.out(this.help);
      return 0;
    }
    const [verb, ...rest] = positionals;
    if (verb === 'export') {
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
      const text = JSON.stringify(new Registry(builtinTools()).manifest, null, 2) + '\n';
      if (values.out) writeFileSync(values.out, text);
      else io.out(text.trimEnd());
      return 0;
    }
    if (verb === 'diff') {
      const [oldPath, newPath, ...extra] = rest;
      if (oldPath === undefined || newPath === undefined || extra.length > 0) throw new UsageError('registry diff OLD.json NEW.json');
      const load = (p: string): Manifest => {
        try {
          return parseManifest(JSON.parse(readFileSync(p, 'utf8')));
        } catch (e) {
          throw new UsageError(`${p}: ${(e as Error).message}`);
        }
      };
      const diff = diffManifests(load(oldPath), load(newPath));
      io.out(values.json ? JSON.stringify(diff, null, 2) : formatDiff(diff));
      return diff.breaking ? 1 : 0;
    }
    if (verb === 'drift') {
      const loaded = loadConfig(values.config, values.workspace);
      const stateDir = values['state-dir'] ?? configPath(loaded, loaded.config.state_dir);
      if (stateDir === undefined) throw new UsageError('registry drift needs --state-dir or state_dir in the configuration');
      const file = join(stateDir, 'gateway', 'drift.jsonl');
      const records = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
      if (values.json) io.out(JSON.stringify(records, null, 2));
      else if (records.length === 0) io.out('no upstream drift recorded');
      else
        for (const r of records) {
          const list = (k: string): string => ((r[k] as string[] | undefined) ?? []).join(', ') || '-';
          io.out(`${String(r['at'])}  ${String(r['upstream'])}  ${String(r['cause'])}  ${r['breaking'] ? 'BREAKING' : 'compatible'}  changed: ${list('changed')}  added (not admitted): ${list('added_not_admitted')}  removed: ${list('removed')}`);
          io.out(`  toolgate registry diff ${String(r['before_file'])} ${String(r['after_file'])}`);
        }
      return 0;
    }
    throw new UsageError('registry export | registry diff OLD NEW | registry drift');
  },
};
