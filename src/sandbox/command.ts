import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Resolves argv[0] as the sandbox will: same paths inside, minus what the sandbox hides
 * (`visible`). Null when nothing executable is there.
 */
export function resolveCommand(cmd: string, cwd: string, path: string | undefined, visible: (p: string) => boolean = () => true): string | null {
  const executable = (p: string): boolean => {
    if (!visible(p)) return false;
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (cmd.includes('/')) {
    const p = isAbsolute(cmd) ? cmd : resolve(cwd, cmd);
    return executable(p) ? p : null;
  }
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(isAbsolute(dir) ? dir : resolve(cwd, dir), cmd);
    if (executable(p)) return p;
  }
  return null;
}

/** Where `script` is looked for: the command's PATH may not name the system directories. */
export const PTY_PATH = '/usr/bin:/bin';

/** One word for `sh -c`, whatever it holds. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
