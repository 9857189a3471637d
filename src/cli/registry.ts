import { readFileSync, writeFileSync } from 'node:fs';
import { diffManifests, formatDiff, parseManifest, Registry, type Manifest } from '../registry/index.js';
import { builtinTools } from '../tools/index.js';
import { parse } from './options.js';
import { UsageError, type Command } from './usage.js';

export const registryCommand: Command = {
  name: 'registry',
  summary: 'export the registry revision, or diff two exports',
  help: `toolgate registry export [--out FILE]
toolgate registry diff OLD.json NEW.json [--json]

export writes the built-in registry revision (every tool entry with its schemas) as JSON.
diff classifies each change as compatible or breaking; exit 1 when any change is breaking.`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { out: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
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
    throw new UsageError('registry export | registry diff OLD NEW');
  },
};
