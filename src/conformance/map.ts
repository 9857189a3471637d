// What the kit needs to know of a server: which of its tools read, write, edit, list, search,
// run commands, rename and delete, as argument templates. A string leaf `{path}`, `{content}`, `{old}`, `{new}`,
// `{pattern}`, `{command}` or `{to}` is replaced by the attempt's value; `{root}` by the root the kit made.
// Paths are given relative to the root or absolute (`paths`), as the server expects them.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { StartupError } from '../protocol/index.js';

const operation = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  /** edit: the field names of one edit in the `{edits}` array (e.g. `oldText`/`newText`). */
  edit_fields: z.strictObject({ old: z.string().min(1), new: z.string().min(1) }).optional(),
  /**
   * list_pages, search_pages: where a truncated answer's continuation token is (`field`, a JSON
   * pointer into the result's structured content) and which argument hands it back (`arg`).
   */
  continuation: z.strictObject({ arg: z.string().min(1), field: z.string().regex(/^(\/[^/]*)*$/, 'a JSON pointer') }).optional(),
});

export const OPERATIONS = ['read', 'page', 'write', 'edit', 'list', 'search', 'exec', 'rename', 'delete', 'list_pages', 'search_pages'] as const;
export type Operation = (typeof OPERATIONS)[number];

export const conformanceMap = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().min(1),
  /** `relative`: paths beneath the root as `a/b`; `absolute`: the root's absolute path joined. */
  paths: z.enum(['relative', 'absolute']),
  read: operation.optional(),
  /** A read of `{lines}` lines from line `{line}` (1-based): how the kit pages through a big file. */
  page: operation.optional(),
  write: operation.optional(),
  edit: operation.optional(),
  list: operation.optional(),
  search: operation.optional(),
  exec: operation.optional(),
  /** `{path}` the entry to move, `{to}` where. */
  rename: operation.optional(),
  delete: operation.optional(),
  /** A listing of `{path}` at most `{page_size}` entries a page, with its `continuation`. */
  list_pages: operation.optional(),
  /** A search for `{pattern}` at most `{page_size}` matches a page, with its `continuation`. */
  search_pages: operation.optional(),
});
export type ConformanceMap = z.infer<typeof conformanceMap>;

export function loadMap(file: string): ConformanceMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new StartupError('invalid_config', `cannot read the map ${file}: ${(e as Error).message}`, { file, reason: 'unreadable', faults: [] });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new StartupError('invalid_config', `the map ${file} is not JSON: ${(e as Error).message}`, { file, reason: 'not_json', faults: [] });
  }
  const parsed = conformanceMap.safeParse(json);
  if (!parsed.success) {
    const faults = parsed.error.issues.map((i) => ({ pointer: `/${i.path.join('/')}`, message: i.message }));
    throw new StartupError('invalid_config', `the map ${file} is not a conformance map: ${faults.map((f) => `${f.pointer}: ${f.message}`).join('; ')}`, { file, reason: 'schema', faults });
  }
  return parsed.data;
}

/** The arguments of one attempt: every string leaf with its placeholders replaced. */
export function fill(template: unknown, values: Readonly<Record<string, unknown>>): unknown {
  if (typeof template === 'string') {
    const whole = /^\{(\w+)\}$/.exec(template);
    if (whole && values[whole[1] as string] !== undefined) return values[whole[1] as string];
    return template.replace(/\{(\w+)\}/g, (m, k: string) => (typeof values[k] === 'string' ? values[k] : m));
  }
  if (Array.isArray(template)) return template.map((t) => fill(t, values));
  if (template && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fill(v, values)]));
  return template;
}
