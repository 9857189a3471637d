// The bash grammar, loaded once: tree-sitter's bash grammar compiled to WebAssembly and run by
// web-tree-sitter. A maintained grammar, not a regex: compound commands, substitutions,
// here-documents and quoting are what a policy is bypassed with, and only a real parser sees
// them as bash does. The wasm build needs no native compiler (the package's native binding is
// not used: allowScripts keeps its install script off).
import { createRequire } from 'node:module';
import type { Language, Node, Parser, Tree } from 'web-tree-sitter';

export type { Language, Node, Tree };

let loading: Promise<Parser> | null = null;

async function load(): Promise<Parser> {
  // Loaded on first use: a runtime that never parses a shell line never loads the grammar.
  const { Language, Parser } = await import('web-tree-sitter');
  const require = createRequire(import.meta.url);
  await Parser.init();
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}

/** The one bash parser of this process (parsing is synchronous once it is loaded). */
export function bashParser(): Promise<Parser> {
  loading ??= load().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}
