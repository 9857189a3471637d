import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { digestOf, sha256Hex, type Digest } from '../protocol/index.js';

/** A tool folder past these is not one tool's folder (a module URL at a project's root, say). */
const MAX_FILES = 2_000;
const MAX_BYTES = 64 * 1024 * 1024;

interface CodeOf {
  readonly name: string;
  readonly normalize: { toString(): string };
  readonly execute: { toString(): string };
  readonly reconcile?: { toString(): string };
}

/**
 * The digest of a tool's implementation (docs/registry.md, "Implementation digest"): given the
 * URL of its defining module, the sha256 over the sorted module files of that module's folder
 * and its subfolders (same extension as the module: `.js` when built, `.ts` under tsx; no
 * `.d.ts`), so a change in any helper of the tool counts and formatting of unrelated code does
 * not move it between two loads. Without a module URL, or when its files cannot be read (a
 * bundle), the fallback is the text of normalize/execute/reconcile.
 */
export function implementationDigestOf(tool: CodeOf, module: string | URL | undefined): Digest {
  const files = module === undefined ? null : moduleFilesOf(tool.name, module);
  if (files === null) return digestOf([tool.normalize.toString(), tool.execute.toString(), tool.reconcile?.toString() ?? null]);
  return digestOf({ module_files: files });
}

/** `[relative path, sha256 of its bytes]` sorted by path, or null when the folder cannot be read. */
function moduleFilesOf(toolName: string, module: string | URL): (readonly [string, string])[] | null {
  const url = new URL(module);
  if (url.protocol !== 'file:') return null;
  const entry = fileURLToPath(url);
  const root = dirname(entry);
  const ext = extname(entry);
  const out: [string, string][] = [];
  let bytes = 0;
  const walk = (dir: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.name.startsWith('.') || d.name === 'node_modules') continue;
      const path = join(dir, d.name);
      if (d.isDirectory()) walk(path);
      else if (d.isFile() && d.name.endsWith(ext) && !d.name.endsWith(`.d${ext}`)) {
        const content = readFileSync(path);
        bytes += content.length;
        out.push([relative(root, path), sha256Hex(content)]);
        if (out.length > MAX_FILES || bytes > MAX_BYTES) {
          throw new TypeError(`tool ${toolName}: ${root} is too large for an implementation digest; give the tool its own folder or pass implementation_digest`);
        }
      }
    }
  };
  try {
    walk(root);
  } catch (e) {
    if (e instanceof TypeError) throw e;
    return null;
  }
  if (out.length === 0) return null;
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
