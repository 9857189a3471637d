// What a bash word is before it runs, when that can be known from the text alone: quotes
// removed, escapes applied, pieces joined. Anything the shell would compute (an expansion, a
// substitution, a glob, a brace list, a tilde) makes the word dynamic, and says why.
import type { Node } from './grammar.js';

export type Word = { readonly literal: string } | { readonly dynamic: string; readonly text: string };

export const isLiteral = (w: Word): w is { readonly literal: string } => 'literal' in w;

const GLOB = /[*?[]/;

/** Backslash escapes of an unquoted word: `\c` is `c`, a backslash-newline joins lines. */
function unescapeBare(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/** Inside double quotes a backslash escapes only $ ` " \ and newline. */
function unescapeDouble(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

const C_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** `$'…'`: ANSI-C escapes (\xHH, \NNN, \uHHHH, \UHHHHHHHH, \cX and the letters). */
export function decodeAnsiC(body: string): string | null {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i];
    if (n === undefined) return null;
    if (C_ESCAPES[n] !== undefined) out += C_ESCAPES[n];
    else if (n === 'x') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1));
      if (!m) return null;
      out += String.fromCharCode(parseInt(m[0], 16));
      i += m[0].length;
    } else if (n === 'u' || n === 'U') {
      const m = new RegExp(`^[0-9a-fA-F]{1,${n === 'u' ? 4 : 8}}`).exec(body.slice(i + 1));
      if (!m) return null;
      out += String.fromCodePoint(parseInt(m[0], 16));
      i += m[0].length;
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i));
      out += String.fromCharCode(parseInt((m as RegExpExecArray)[0], 8));
      i += (m as RegExpExecArray)[0].length - 1;
    } else if (n === 'c') {
      const x = body[++i];
      if (x === undefined) return null;
      out += String.fromCharCode(x.toUpperCase().charCodeAt(0) ^ 64);
    } else out += `\\${n}`;
  }
  return out;
}

/** The literal value of a word node, or why it has none. */
export function wordOf(node: Node): Word {
  const text = node.text;
  switch (node.type) {
    case 'word':
    case 'number': {
      if (text.startsWith('~')) return { dynamic: 'tilde', text };
      // Unescaped glob or brace characters: the shell expands them.
      const bare = text.replace(/\\./gs, '');
      if (GLOB.test(bare)) return { dynamic: 'glob', text };
      if (/\{[^}]*(,|\.\.)[^}]*\}/.test(bare)) return { dynamic: 'brace_expansion', text };
      return { literal: unescapeBare(text) };
    }
    case 'raw_string':
      return { literal: text.slice(1, -1) };
    case 'ansi_c_string': {
      const decoded = decodeAnsiC(text.slice(2, -1));
      return decoded === null ? { dynamic: 'ansi_c_string', text } : { literal: decoded };
    }
    case 'translated_string':
      return { dynamic: 'locale_string', text };
    case 'string': {
      let out = '';
      for (const child of node.namedChildren) {
        if (!child) continue;
        if (child.type !== 'string_content') return { dynamic: child.type, text };
      }
      // The content between the quotes, escapes applied (string_content loses nothing).
      out = unescapeDouble(text.slice(1, -1));
      return { literal: out };
    }
    case 'concatenation': {
      let out = '';
      for (const child of node.namedChildren) {
        if (!child) continue;
        const w = wordOf(child);
        if (!isLiteral(w)) return { dynamic: w.dynamic, text };
        out += w.literal;
      }
      return { literal: out };
    }
    case 'simple_expansion':
    case 'expansion':
      return { dynamic: `variable:${node.text.replace(/^\$\{?#?!?/, '').replace(/[^A-Za-z0-9_@*#?$!-].*$/s, '')}`, text };
    case 'command_substitution':
      return { dynamic: 'command_substitution', text };
    case 'process_substitution':
      return { dynamic: 'process_substitution', text };
    case 'arithmetic_expansion':
      return { dynamic: 'arithmetic_expansion', text };
    default:
      return { dynamic: node.type, text };
  }
}
