// A bash script as the simple commands it contains, wherever they are: lists, pipelines,
// subshells, groups, conditionals and loops, function bodies, command and process
// substitutions (in arguments, assignments, redirections and unquoted here-documents), and
// the redirections with their targets. What the grammar could not parse is reported, never
// guessed around.
import { bashParser, type Language, type Node, type Tree } from './grammar.js';
import { wordOf, type Word } from './words.js';

export interface SimpleCommand {
  /** The command name and its arguments, as bash would see them before expansion. */
  readonly words: readonly Word[];
  /** `NAME=value` prefixes (their names): the command runs with these in its environment. */
  readonly assignments: readonly string[];
  /** Where it sits: `pipeline`, `command_substitution`, `process_substitution`, `function:NAME`, `background`… */
  readonly context: readonly string[];
  readonly text: string;
}

export type RedirectAccess = 'read' | 'write' | 'read_write';

export interface Redirection {
  readonly operator: string;
  readonly access: RedirectAccess;
  /** The file, when the target is one (a `>&2` duplication has none). */
  readonly target: Word;
  readonly text: string;
}

export interface ParsedScript {
  readonly commands: readonly SimpleCommand[];
  readonly redirections: readonly Redirection[];
  /** Functions the script defines: calling one runs its body (already in `commands`), not a program. */
  readonly functions: ReadonlySet<string>;
  /** `alias NAME=VALUE` definitions with a literal value. */
  readonly aliases: ReadonlyMap<string, string>;
  /** Text the grammar could not parse (ERROR or MISSING nodes). */
  readonly errors: readonly string[];
  /**
   * The script as its syntax, spelling removed: the tree's nodes and operators, each word as
   * bash reads it (quotes removed, escapes applied; a computed one as its source), comments and
   * `;`/newline terminators left out. `pytest  "-q"&&make` and `pytest -q && make` have one
   * form; `a && b` and `a || b`, or another here-document body, do not. Approvals bind to it.
   * Null unless asked for (a second walk of the tree: only the line a call was given needs it).
   */
  readonly canonical: string | null;
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>']);

function accessOf(op: string): RedirectAccess | null {
  if (WRITE_OPS.has(op)) return 'write';
  if (op === '<') return 'read';
  if (op === '<>') return 'read_write';
  return null; // >& <& duplications, or an operator that names no file
}

/** Syntax nested deeper than this is not walked (an error): the walk recurses, and must not overflow the stack. */
export const MAX_NESTING = 256;
const TOO_DEEP = `syntax nested deeper than ${MAX_NESTING} levels`;

/** A node with what the walk asks of it read once: every property of a web-tree-sitter Node is a call into the wasm. */
interface Seen {
  readonly node: Node;
  readonly type: string;
  readonly named: boolean;
  /** An ERROR or MISSING node (only ever true in a tree that has an error). */
  readonly broken: boolean;
}

/**
 * The walk. It asks the tree as little as it can: a tree without any error (the root says so
 * once) cannot hold an ERROR or MISSING node, so those checks are made only in a tree that has
 * one, and a node's type and namedness come from one symbol read (namedness per symbol is a
 * property of the grammar, kept in a table). Whether a command runs in the background is read
 * off the sibling list already in hand. This took the walk of a 60-line script from about
 * 0.8 ms to about 0.2 ms; test/resources/shell/parse-oracle.test.ts checks it against the
 * plain walk over Node properties that it replaced.
 */
class Walker {
  #depth = 0;
  readonly commands: SimpleCommand[] = [];
  readonly redirections: Redirection[] = [];
  readonly functions = new Set<string>();
  readonly aliases = new Map<string, string>();
  readonly errors: string[] = [];
  readonly #types: readonly string[];
  readonly #named: (boolean | undefined)[] = [];

  constructor(
    readonly language: Language,
    /** The tree has an error somewhere: every node is asked whether it is one. */
    readonly careful: boolean,
  ) {
    this.#types = language.types;
  }

  seen(node: Node): Seen {
    if (this.careful) return { node, type: node.type, named: node.isNamed, broken: node.isError || node.isMissing };
    const id = node.typeId;
    let named = this.#named[id];
    if (named === undefined) named = this.#named[id] = this.language.nodeTypeIsNamed(id);
    return { node, type: this.#types[id] ?? 'ERROR', named, broken: false };
  }

  /** `background`: the node is followed by `&` (the caller knows its siblings, or asks). */
  visit(n: Seen, context: readonly string[], background = n.node.nextSibling?.type === '&'): void {
    if (this.#depth >= MAX_NESTING) {
      if (!this.errors.includes(TOO_DEEP)) this.errors.push(TOO_DEEP);
      return;
    }
    this.#depth++;
    try {
      this.#visit(n, background ? [...context, 'background'] : context);
    } finally {
      this.#depth--;
    }
  }

  #visit(n: Seen, here: readonly string[]): void {
    const node = n.node;
    if (n.broken) {
      this.errors.push(node.isMissing ? `missing ${n.type}` : node.text.slice(0, 200));
      return;
    }
    switch (n.type) {
      case 'command':
        return this.#command(node, here);
      case 'function_definition': {
        const name = node.childForFieldName('name');
        if (name) this.functions.add(name.text);
        const body = node.childForFieldName('body');
        if (body) this.visit(this.seen(body), [...here, `function:${name?.text ?? '?'}`]);
        return;
      }
      case 'pipeline':
        return this.#children(node, [...here, 'pipeline']);
      case 'command_substitution':
      case 'process_substitution':
      case 'subshell':
        return this.#children(node, [...here, n.type]);
      case 'file_redirect':
      case 'herestring_redirect':
        return this.#redirect(node, n.type, here);
      case 'heredoc_redirect':
        // A quoted delimiter keeps the body literal; an unquoted one runs its substitutions (the grammar parses them only then).
        return this.#children(node, [...here, 'heredoc']);
      default:
        if (this.careful && node.hasError && node.namedChildCount === 0) this.errors.push(node.text.slice(0, 200));
        return this.#children(node, here);
    }
  }

  #kids(node: Node): Seen[] {
    const out: Seen[] = [];
    for (const child of node.children) if (child) out.push(this.seen(child));
    return out;
  }

  #children(node: Node, context: readonly string[]): void {
    const kids = this.#kids(node);
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i] as Seen;
      if (k.named || k.broken) this.visit(k, context, kids[i + 1]?.type === '&');
    }
  }

  #command(node: Node, context: readonly string[]): void {
    const words: Word[] = [];
    const assignments: string[] = [];
    const kids = this.#kids(node);
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i] as Seen;
      const background = kids[i + 1]?.type === '&';
      if (k.broken) {
        this.visit(k, context, background);
        continue;
      }
      if (!k.named) continue;
      switch (k.type) {
        case 'variable_assignment':
          assignments.push(k.node.childForFieldName('name')?.text ?? k.node.text);
          this.#children(k.node, context);
          break;
        case 'command_name': {
          const inner = k.node.namedChildren[0];
          if (inner) {
            words.push(wordOf(inner));
            this.visit(this.seen(inner), context);
          }
          break;
        }
        case 'file_redirect':
        case 'herestring_redirect':
        case 'heredoc_redirect':
          this.visit(k, context, background);
          break;
        default:
          words.push(wordOf(k.node));
          // Substitutions inside an argument run too.
          this.visit(k, context, background);
      }
    }
    const name = words[0];
    if (name && 'literal' in name && name.literal === 'alias') this.#alias(words.slice(1));
    this.commands.push({ words, assignments, context, text: node.text.slice(0, 500) });
  }

  #alias(args: readonly Word[]): void {
    for (const a of args) {
      if (!('literal' in a)) continue;
      const eq = a.literal.indexOf('=');
      if (eq > 0) this.aliases.set(a.literal.slice(0, eq), a.literal.slice(eq + 1));
    }
  }

  #redirect(node: Node, type: string, context: readonly string[]): void {
    const kids = this.#kids(node);
    // An operator the grammar does not know (`<>`) leaves an ERROR inside the redirection.
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i] as Seen;
      if (k.broken) this.visit(k, context, kids[i + 1]?.type === '&');
    }
    const op = kids.find((k) => !k.named)?.node.text ?? '';
    const target = node.childForFieldName('destination') ?? kids.filter((k) => k.named && k.type !== 'file_descriptor').at(-1)?.node ?? null;
    if (target) this.visit(this.seen(target), context);
    if (type === 'herestring_redirect' || !target) return;
    const access = accessOf(op);
    if (access !== null) this.redirections.push({ operator: op, access, target: wordOf(target), text: node.text.slice(0, 500) });
  }
}

/** Nodes whose value is a word: the form takes their value, not their spelling. */
const WORDISH = new Set(['word', 'number', 'string', 'raw_string', 'ansi_c_string', 'concatenation', 'translated_string']);
/** Terminators that separate commands without changing what runs. */
const TERMINATORS = new Set([';', '\n']);

/** The canonical form of a parsed tree (ParsedScript.canonical), walked with a cursor. */
function canonicalOf(tree: Tree): string {
  const out: string[] = [];
  const cursor = tree.walk();
  try {
    for (;;) {
      const type = cursor.nodeType;
      if (type === 'comment' || TERMINATORS.has(type)) {
        // left out
      } else if (WORDISH.has(type)) {
        out.push(JSON.stringify(wordOf(cursor.currentNode)));
      } else if (cursor.gotoFirstChild()) {
        out.push(`(${type}`);
        continue;
      } else {
        // A leaf: an operator or keyword is its type; a named leaf (a here-document body, a variable name) keeps its text.
        out.push(cursor.nodeIsNamed ? `${type}:${JSON.stringify(cursor.nodeText)}` : JSON.stringify(type));
      }
      // Next sibling, or climb (closing each node left) until one has one.
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return out.join(' ');
        out.push(')');
      }
    }
  } finally {
    cursor.delete();
  }
}

/** Parses `script` as bash; `canonical` also gives the line's canonical form. */
export async function parseBash(script: string, o: { readonly canonical?: boolean } = {}): Promise<ParsedScript> {
  const parser = await bashParser();
  const tree = parser.parse(script);
  if (!tree) return { commands: [], redirections: [], functions: new Set(), aliases: new Map(), errors: ['the parser returned no tree'], canonical: o.canonical === true ? '' : null };
  try {
    const root = tree.rootNode;
    const w = new Walker(tree.language, root.hasError);
    w.visit(w.seen(root), [], false);
    return { commands: w.commands, redirections: w.redirections, functions: w.functions, aliases: w.aliases, errors: w.errors, canonical: o.canonical === true ? canonicalOf(tree) : null };
  } finally {
    tree.delete();
  }
}

/** A command line as its words (quotes removed), when it is one plain command of literal words; else null. */
export async function literalWords(line: string): Promise<string[] | null> {
  const p = await parseBash(line);
  const [only] = p.commands;
  if (p.errors.length > 0 || p.commands.length !== 1 || p.redirections.length > 0 || !only || only.assignments.length > 0 || only.context.length > 0) return null;
  const words: string[] = [];
  for (const w of only.words) {
    if (!('literal' in w)) return null;
    words.push(w.literal);
  }
  return words;
}
