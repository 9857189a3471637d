// The walk of src/resources/shell/parse.ts as it was first written: every question asked of
// each Node (its type, namedness, error marks, next sibling). The walk in src asks less of the
// tree for speed; this one is kept as the oracle it must agree with (parse-oracle.test.ts).
import { bashParser, type Node } from '../../../src/resources/shell/grammar.js';
import { wordOf, type Word } from '../../../src/resources/shell/words.js';
import type { ParsedScript, RedirectAccess, Redirection, SimpleCommand } from '../../../src/resources/shell/parse.js';

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>']);

function accessOf(op: string): RedirectAccess | null {
  if (WRITE_OPS.has(op)) return 'write';
  if (op === '<') return 'read';
  if (op === '<>') return 'read_write';
  return null; // >& <& duplications, or an operator that names no file
}

/** Syntax nested deeper than this is not walked (an error): the walk recurses, and must not overflow the stack. */
const MAX_NESTING = 256;
const TOO_DEEP = `syntax nested deeper than ${MAX_NESTING} levels`;

class Walker {
  #depth = 0;
  readonly commands: SimpleCommand[] = [];
  readonly redirections: Redirection[] = [];
  readonly functions = new Set<string>();
  readonly aliases = new Map<string, string>();
  readonly errors: string[] = [];

  visit(node: Node, context: readonly string[]): void {
    if (this.#depth >= MAX_NESTING) {
      if (!this.errors.includes(TOO_DEEP)) this.errors.push(TOO_DEEP);
      return;
    }
    this.#depth++;
    try {
      this.#visit(node, context);
    } finally {
      this.#depth--;
    }
  }

  #visit(node: Node, context: readonly string[]): void {
    if (node.isError || node.isMissing) {
      this.errors.push(node.isMissing ? `missing ${node.type}` : node.text.slice(0, 200));
      return;
    }
    const here = node.nextSibling?.type === '&' ? [...context, 'background'] : context;
    switch (node.type) {
      case 'command':
        return this.#command(node, here);
      case 'function_definition': {
        const name = node.childForFieldName('name');
        if (name) this.functions.add(name.text);
        const body = node.childForFieldName('body');
        if (body) this.visit(body, [...here, `function:${name?.text ?? '?'}`]);
        return;
      }
      case 'pipeline':
        return this.#children(node, [...here, 'pipeline']);
      case 'command_substitution':
      case 'process_substitution':
      case 'subshell':
        return this.#children(node, [...here, node.type]);
      case 'file_redirect':
      case 'herestring_redirect':
        return this.#redirect(node, here);
      case 'heredoc_redirect':
        // A quoted delimiter keeps the body literal; an unquoted one runs its substitutions (the grammar parses them only then).
        return this.#children(node, [...here, 'heredoc']);
      default:
        if (node.hasError && node.namedChildCount === 0) this.errors.push(node.text.slice(0, 200));
        return this.#children(node, here);
    }
  }

  #children(node: Node, context: readonly string[]): void {
    for (const child of node.children) if (child && (child.isNamed || child.isError || child.isMissing)) this.visit(child, context);
  }

  #command(node: Node, context: readonly string[]): void {
    const words: Word[] = [];
    const assignments: string[] = [];
    for (const child of node.children) {
      if (!child) continue;
      if (child.isError || child.isMissing) {
        this.visit(child, context);
        continue;
      }
      if (!child.isNamed) continue;
      switch (child.type) {
        case 'variable_assignment':
          assignments.push(child.childForFieldName('name')?.text ?? child.text);
          this.#children(child, context);
          break;
        case 'command_name': {
          const inner = child.namedChildren[0];
          if (inner) {
            words.push(wordOf(inner));
            this.visit(inner, context);
          }
          break;
        }
        case 'file_redirect':
        case 'herestring_redirect':
        case 'heredoc_redirect':
          this.visit(child, context);
          break;
        default:
          words.push(wordOf(child));
          // Substitutions inside an argument run too.
          this.visit(child, context);
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

  #redirect(node: Node, context: readonly string[]): void {
    // An operator the grammar does not know (`<>`) leaves an ERROR inside the redirection.
    for (const c of node.children) if (c && (c.isError || c.isMissing)) this.visit(c, context);
    const op = node.children.find((c) => c && !c.isNamed)?.text ?? '';
    const target = node.childForFieldName('destination') ?? node.namedChildren.filter((c) => c && c.type !== 'file_descriptor').at(-1) ?? null;
    if (target) this.visit(target, context);
    if (node.type === 'herestring_redirect' || !target) return;
    const access = accessOf(op);
    if (access !== null) this.redirections.push({ operator: op, access, target: wordOf(target), text: node.text.slice(0, 500) });
  }
}

/** Parses `script` as bash, walking with plain Node properties. */
export async function referenceParseBash(script: string): Promise<Omit<ParsedScript, 'canonical'>> {
  const parser = await bashParser();
  const tree = parser.parse(script);
  if (!tree) return { commands: [], redirections: [], functions: new Set(), aliases: new Map(), errors: ['the parser returned no tree'] };
  try {
    const w = new Walker();
    w.visit(tree.rootNode, []);
    return { commands: w.commands, redirections: w.redirections, functions: w.functions, aliases: w.aliases, errors: w.errors };
  } finally {
    tree.delete();
  }
}
