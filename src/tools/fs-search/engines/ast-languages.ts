// The languages symbol and structural search parse, through ast-grep's tree-sitter grammars.
// TypeScript and JavaScript are built into @ast-grep/napi; Python, Go and Rust are prebuilt
// grammars loaded into it (a process-wide registry inside the native module: registered once,
// on first use, and found registered by every later caller).
import { createRequire } from 'node:module';
import { Lang, parse, registerDynamicLanguage } from '@ast-grep/napi';
import type { StructuralLanguage } from '../schema.js';

export type AstLanguage = StructuralLanguage;

const EXTENSIONS: Readonly<Record<string, AstLanguage>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
};

const DYNAMIC = ['python', 'go', 'rust'] as const;

/** The name ast-grep knows a language by. */
export function napiLang(lang: AstLanguage): string {
  switch (lang) {
    case 'typescript':
      return Lang.TypeScript;
    case 'tsx':
      return Lang.Tsx;
    case 'javascript':
      return Lang.JavaScript;
    case 'python':
    case 'go':
    case 'rust':
      return lang;
  }
}

/** The character ast-grep substitutes for `$` when a grammar does not allow it in identifiers. */
export function expandoChar(lang: AstLanguage): string {
  return lang === 'python' || lang === 'go' || lang === 'rust' ? 'µ' : '$';
}

export function languageOf(path: string): AstLanguage | null {
  const dot = path.lastIndexOf('.');
  if (dot === -1 || dot < path.lastIndexOf('/')) return null;
  return EXTENSIONS[path.slice(dot + 1)] ?? null;
}

/** Makes sure the dynamic grammars are loaded into ast-grep. */
export function ensureGrammars(): void {
  try {
    parse('python', '');
    return;
  } catch {
    // not registered yet
  }
  const require = createRequire(import.meta.url);
  const regs: Record<string, { libraryPath: string; extensions: string[]; expandoChar?: string }> = {};
  for (const name of DYNAMIC) {
    const mod = require(`@ast-grep/lang-${name}`) as { libraryPath: string; extensions: string[]; expandoChar?: string };
    regs[name] = { libraryPath: mod.libraryPath, extensions: mod.extensions, ...(mod.expandoChar ? { expandoChar: mod.expandoChar } : {}) };
  }
  registerDynamicLanguage(regs);
}
