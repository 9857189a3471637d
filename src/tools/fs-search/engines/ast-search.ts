// Symbol search (definitions by name) and structural search (ast-grep patterns with
// metavariables), one file at a time in result order. Parsing runs on libuv's thread pool
// (parseAsync), so the signal is honoured between files.
import { parse, parseAsync } from '@ast-grep/napi';
import type { SgNode } from '@ast-grep/napi';
import { ToolgateError } from '../../../protocol/index.js';
import type { FileReader } from '../file-access.js';
import { ensureGrammars, expandoChar, languageOf, napiLang, type AstLanguage } from './ast-languages.js';
import type { FileHits, LineHit } from './types.js';

/** Larger source files are not parsed. */
const MAX_PARSE_BYTES = 4 * 1024 * 1024;

type KindTable = Readonly<Record<string, string>>;

const TS_DEFINITIONS: KindTable = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  function_signature: 'function',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  method_definition: 'method',
  method_signature: 'method',
  abstract_method_signature: 'method',
  interface_declaration: 'interface',
  type_alias_declaration: 'type',
  enum_declaration: 'enum',
  variable_declarator: 'variable',
  public_field_definition: 'field',
  internal_module: 'namespace',
};

const DEFINITIONS: Readonly<Record<AstLanguage, KindTable>> = {
  typescript: TS_DEFINITIONS,
  tsx: TS_DEFINITIONS,
  javascript: {
    function_declaration: 'function',
    generator_function_declaration: 'function',
    class_declaration: 'class',
    method_definition: 'method',
    variable_declarator: 'variable',
  },
  python: { function_definition: 'function', class_definition: 'class' },
  go: {
    function_declaration: 'function',
    method_declaration: 'method',
    type_spec: 'type',
    type_alias: 'type',
    const_spec: 'constant',
    var_spec: 'variable',
  },
  rust: {
    function_item: 'function',
    function_signature_item: 'function',
    struct_item: 'struct',
    enum_item: 'enum',
    union_item: 'union',
    trait_item: 'trait',
    type_item: 'type',
    const_item: 'constant',
    static_item: 'static',
    mod_item: 'module',
    macro_definition: 'macro',
  },
};

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Refines a definition's kind from where it stands (a function in a class is a method …). */
function refineKind(lang: AstLanguage, node: SgNode, kind: string): string {
  if (kind === 'variable' && (lang === 'typescript' || lang === 'tsx' || lang === 'javascript')) {
    const decl = node.parent();
    return decl && decl.kind() === 'lexical_declaration' && decl.text().startsWith('const') ? 'constant' : 'variable';
  }
  if (kind === 'function' && lang === 'python') {
    for (let p = node.parent(); p; p = p.parent()) {
      if (p.kind() === 'class_definition') return 'method';
      if (p.kind() === 'function_definition') return 'function';
    }
  }
  if (kind === 'function' && lang === 'rust') {
    for (let p = node.parent(); p; p = p.parent()) {
      if (p.kind() === 'impl_item' || p.kind() === 'trait_item') return 'method';
      if (p.kind() === 'function_item') return 'function';
    }
  }
  if (kind === 'type' && lang === 'go') {
    const t = node.field('type')?.kind();
    if (t === 'struct_type') return 'struct';
    if (t === 'interface_type') return 'interface';
  }
  return kind;
}

/** Byte column (0-based) of a character column in a line. */
function byteColumn(line: string, column: number): number {
  return Buffer.byteLength(line.slice(0, column));
}

function hitAt(lines: readonly string[], node: SgNode, extra: { kind?: string; multiLine: boolean }): LineHit {
  const r = node.range();
  const text = lines[r.start.line] ?? '';
  const start = byteColumn(text, r.start.column);
  const sameLine = r.end.line === r.start.line;
  // With end_line, end_column is on that line (a match spanning lines).
  const end = byteColumn(sameLine ? text : (lines[r.end.line] ?? ''), r.end.column);
  return {
    line: r.start.line + 1,
    column: start + 1,
    end_column: end + 1,
    text,
    ...(extra.kind !== undefined ? { kind: extra.kind } : {}),
    ...(extra.multiLine && !sameLine ? { end_line: r.end.line + 1 } : {}),
  };
}

function splitLines(src: string): string[] {
  return src.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

async function forEachSource(
  files: readonly string[],
  reader: FileReader,
  signal: AbortSignal,
  accept: (lang: AstLanguage) => boolean,
  visit: (lang: AstLanguage, root: SgNode, lines: readonly string[]) => LineHit[],
): Promise<FileHits[]> {
  ensureGrammars();
  const out: FileHits[] = [];
  for (const path of files) {
    signal.throwIfAborted();
    const lang = languageOf(path);
    if (lang === null || !accept(lang)) continue;
    const data = reader.read(path, MAX_PARSE_BYTES);
    if (data === null) continue;
    const src = data.toString('utf8');
    const root = (await parseAsync(napiLang(lang), src)).root();
    const hits = visit(lang, root, splitLines(src));
    if (hits.length === 0) continue;
    hits.sort((a, b) => a.line - b.line || a.column - b.column);
    out.push({ path, hits, count: hits.length });
  }
  signal.throwIfAborted();
  return out;
}

/** A symbol query: the name, and the names of the definitions it must be inside (outermost first). */
export interface SymbolQuery {
  readonly name: string;
  readonly containers: readonly string[];
}

const IDENTIFIER = /^[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$]*$/u;

/** `parseConfig`, `ConfigStore.load`, `Outer.Inner.method` or Rust's `Parser::parse`; null when it is none of those. */
export function parseSymbolQuery(query: string): SymbolQuery | null {
  const parts = query.split(/\.|::/);
  if (!parts.every((p) => IDENTIFIER.test(p))) return null;
  return { name: parts[parts.length - 1] as string, containers: parts.slice(0, -1) };
}

/** Definitions that contain others, per language; their name is the `name` field unless `containerName` says otherwise. */
const CONTAINERS: Readonly<Record<AstLanguage, ReadonlySet<string>>> = {
  typescript: new Set(['class_declaration', 'abstract_class_declaration', 'class', 'interface_declaration', 'internal_module', 'function_declaration', 'generator_function_declaration', 'method_definition', 'variable_declarator']),
  tsx: new Set(['class_declaration', 'abstract_class_declaration', 'class', 'interface_declaration', 'internal_module', 'function_declaration', 'generator_function_declaration', 'method_definition', 'variable_declarator']),
  javascript: new Set(['class_declaration', 'class', 'function_declaration', 'generator_function_declaration', 'method_definition', 'variable_declarator']),
  python: new Set(['class_definition', 'function_definition']),
  go: new Set(['function_declaration', 'method_declaration']),
  rust: new Set(['impl_item', 'trait_item', 'mod_item', 'function_item']),
};

/** The type a Rust `impl` is for, or a Go method's receiver type, without pointers, generics or paths. */
function typeNameIn(node: SgNode | null): string | null {
  if (node === null) return null;
  if (node.kind() === 'type_identifier') return node.text();
  return node.find({ rule: { kind: 'type_identifier' } })?.text() ?? null;
}

function containerName(node: SgNode): string | null {
  if (node.kind() === 'impl_item') return typeNameIn(node.field('type'));
  return node.field('name')?.text() ?? null;
}

/** The names of the definitions around `node`, outermost first (a Go method's receiver type counts as its container). */
function containersOf(lang: AstLanguage, node: SgNode): string[] {
  const out: string[] = [];
  const kinds = CONTAINERS[lang];
  for (let p = node.parent(); p; p = p.parent()) {
    if (!kinds.has(String(p.kind()))) continue;
    const name = containerName(p);
    if (name !== null) out.push(name);
  }
  if (lang === 'go' && node.kind() === 'method_declaration') {
    const receiver = typeNameIn(node.field('receiver'));
    if (receiver !== null) out.push(receiver);
  }
  return out.reverse();
}

/** Whether `wanted` (outermost first) names the innermost containers of `found`. */
function endsWith(found: readonly string[], wanted: readonly string[], caseSensitive: boolean): boolean {
  if (wanted.length > found.length) return false;
  const offset = found.length - wanted.length;
  return wanted.every((w, i) => (caseSensitive ? found[offset + i] === w : (found[offset + i] as string).toLowerCase() === w.toLowerCase()));
}

/**
 * Definitions named exactly `query.name` (case-sensitive unless told otherwise) whose enclosing
 * definitions end with `query.containers`; each with its container chain and last line.
 */
export function findDefinitions(files: readonly string[], query: SymbolQuery, caseSensitive: boolean, reader: FileReader, signal: AbortSignal): Promise<FileHits[]> {
  const { name } = query;
  const regex = `^${caseSensitive ? '' : '(?i)'}${escapeRegex(name)}$`;
  const sameName = new RegExp(`^${escapeRegex(name)}$`, caseSensitive ? '' : 'i');
  return forEachSource(
    files,
    reader,
    signal,
    () => true,
    (lang, root, lines) => {
      const table = DEFINITIONS[lang];
      const hits: LineHit[] = [];
      const add = (definition: SgNode, nameNode: SgNode, kind: string): void => {
        const chain = containersOf(lang, definition);
        if (!endsWith(chain, query.containers, caseSensitive)) return;
        hits.push({
          ...hitAt(lines, nameNode, { kind, multiLine: false }),
          end_line: definition.range().end.line + 1,
          ...(chain.length > 0 ? { container: chain.join('.') } : {}),
        });
      };
      const found = root.findAll({ rule: { any: Object.keys(table).map((kind) => ({ kind })), has: { field: 'name', regex } } });
      for (const node of found) {
        const kind = table[node.kind()];
        if (kind === undefined) continue;
        // Go's `const a, b = …` has several names: report the one that matched.
        for (const nameNode of node.fieldChildren('name')) {
          if (sameName.test(nameNode.text())) add(node, nameNode, refineKind(lang, node, kind));
        }
      }
      if (lang === 'python') {
        // Module-level assignments are Python's constants.
        for (const node of root.findAll({ rule: { kind: 'assignment', has: { field: 'left', kind: 'identifier', regex } } })) {
          if (node.parent()?.parent()?.kind() !== 'module') continue;
          const left = node.field('left');
          if (left) add(node, left, 'constant');
        }
      }
      return hits;
    },
  );
}

/** The languages `pattern` parses in; throws `invalid_arguments` when there are none. */
export function structuralLanguages(pattern: string, only: AstLanguage | undefined): AstLanguage[] {
  ensureGrammars();
  const all: AstLanguage[] = only ? [only] : ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust'];
  const ok: AstLanguage[] = [];
  const errors: string[] = [];
  for (const lang of all) {
    const source = pattern.replaceAll('$', expandoChar(lang));
    const root = parse(napiLang(lang), source).root();
    const broken = root.find({ rule: { kind: 'ERROR' } });
    if (broken === null) ok.push(lang);
    else errors.push(`${lang}: syntax error at line ${(broken?.range().start.line ?? 0) + 1}`);
  }
  if (ok.length === 0) {
    throw new ToolgateError('invalid_arguments', `the pattern does not parse: ${errors.join('; ')}`, { faults: [{ pointer: '/query', message: errors.join('; ') }], engine: 'ast-grep' });
  }
  return ok;
}

/** Nodes matching an ast-grep pattern, in the given languages. */
export function findStructural(files: readonly string[], pattern: string, languages: readonly AstLanguage[], reader: FileReader, signal: AbortSignal): Promise<FileHits[]> {
  return forEachSource(
    files,
    reader,
    signal,
    (lang) => languages.includes(lang),
    (_lang, root, lines) => root.findAll(pattern).map((node) => hitAt(lines, node, { multiLine: true })),
  );
}
