// The programs a shell line will run, as policy needs to see them: every simple command of the
// script (parse.ts), builtins set aside, wrappers unwrapped to what they run (wrappers.ts),
// `sh -c`, `eval`, `trap` and aliases parsed again to a bound, interpreters marked, and each
// program resolved to the file the sandbox will run (programs.ts). What cannot be known from
// the text (a command name from a variable, `eval "$x"`, `source`, an unsupported wrapper, a
// parse error, too deep a nesting) is reported as unresolved: the action names it, and a
// policy that restricts programs refuses it.
import { parseBash, type ParsedScript, type RedirectAccess } from './parse.js';
import { ProgramResolver } from './programs.js';
import { INTERPRETERS, interpreterFamily, SHELLS, UNSUPPORTED_WRAPPERS, WRAPPERS } from './wrappers.js';
import { isLiteral, type Word } from './words.js';

export interface ProgramUse {
  /** What runs: the system program's name (a copy or link is named as what it is). */
  readonly name: string;
  /** The file that runs; null when nothing by that name exists where the sandbox looks. */
  readonly path: string | null;
  /** Arguments as written (dynamic ones as their source text). */
  readonly args: readonly string[];
  /** Some argument is computed when the line runs (a variable, a substitution, a glob, stdin for xargs). */
  readonly dynamic_args: boolean;
  /** The wrappers it runs under, outermost first (`sudo`, `env`, `timeout`, `sh -c`, `eval`, `find -exec`…). */
  readonly wrappers: readonly string[];
  /** A shell or a language interpreter. */
  readonly is_interpreter: boolean;
  /** It is given code to run (`-c`, `-e`, a script on stdin), which no policy can read as programs. */
  readonly runs_code: boolean;
  /** Its arguments ask for the network where that is known (curl, git push, npm install…). */
  readonly has_network_flags: boolean;
  /** False: not a system program (a file in the workspace, unlike any system program). */
  readonly system: boolean;
  readonly context: readonly string[];
}

export interface Unresolved {
  readonly reason: 'dynamic_command_name' | 'eval' | 'source' | 'unsupported_wrapper' | 'parse_error' | 'too_deep' | 'wrapper_options' | 'interpreter_file' | 'session_state';
  readonly text: string;
}

export interface RedirectUse {
  readonly access: RedirectAccess;
  /** The target as written, when literal (normalized by the caller like any path); null when computed. */
  readonly path: string | null;
  readonly text: string;
}

export interface ShellIntent {
  /** The line's syntax with its spelling removed (ParsedScript.canonical): what an approval binds. */
  readonly canonical: string;
  readonly programs: readonly ProgramUse[];
  readonly unresolved: readonly Unresolved[];
  readonly redirections: readonly RedirectUse[];
}

export interface IntentOptions {
  /** PATH inside the sandbox (the call's own, if it sets one). */
  readonly path?: string;
  /** The working directory the script starts in. */
  readonly cwd: string;
  /** Writable directories (the workspace): files there are identified by content, not location. */
  readonly writable?: readonly string[];
  /** How deep `sh -c`, `eval`, aliases and wrappers may nest before the rest is unresolved. Default 4. */
  readonly maxDepth?: number;
}

/** Builtins (and keywords parsed as commands) that run no program. */
const BUILTINS = new Set([
  ':', '.', '[', 'alias', 'bg', 'bind', 'break', 'caller', 'cd', 'compgen', 'complete', 'compopt', 'continue', 'declare', 'dirs', 'disown',
  'echo', 'enable', 'exit', 'export', 'false', 'fc', 'fg', 'getopts', 'hash', 'help', 'history', 'jobs', 'kill', 'let', 'local', 'logout',
  'mapfile', 'popd', 'printf', 'pushd', 'pwd', 'read', 'readarray', 'readonly', 'return', 'set', 'shift', 'shopt', 'suspend', 'test', 'times',
  'true', 'type', 'typeset', 'ulimit', 'umask', 'unalias', 'unset', 'wait',
]);

const NETWORK_PROGRAMS = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'telnet', 'ftp', 'rsync', 'aria2c', 'httpie', 'http', 'dig', 'nslookup', 'ping']);
const NETWORK_SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['git', new Set(['push', 'fetch', 'pull', 'clone', 'ls-remote', 'remote', 'submodule', 'send-email'])],
  ['npm', new Set(['install', 'i', 'ci', 'add', 'publish', 'update', 'exec', 'x', 'view', 'audit'])],
  ['npx', new Set(['*'])],
  ['yarn', new Set(['install', 'add', 'publish', 'dlx', 'up'])],
  ['pnpm', new Set(['install', 'i', 'add', 'publish', 'dlx', 'update'])],
  ['pip', new Set(['install', 'download'])],
  ['apt', new Set(['install', 'update', 'download'])],
  ['apt-get', new Set(['install', 'update', 'download'])],
  ['cargo', new Set(['install', 'fetch', 'publish', 'update'])],
  ['go', new Set(['get', 'install', 'mod'])],
  ['docker', new Set(['pull', 'push', 'login', 'run'])],
]);

function hasNetworkFlags(name: string, args: readonly string[]): boolean {
  if (NETWORK_PROGRAMS.has(name)) return true;
  const family = name.replace(/[0-9.]+$/, '');
  const subs = NETWORK_SUBCOMMANDS.get(family);
  const sub = args.find((a) => !a.startsWith('-'));
  if (subs && (subs.has('*') || (sub !== undefined && subs.has(sub)))) return true;
  // python -m pip install …
  if (interpreterFamily(name) === 'python') {
    const m = args.indexOf('-m');
    if (m !== -1 && args[m + 1] === 'pip' && ['install', 'download'].includes(args[m + 2] ?? '')) return true;
  }
  return args.some((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a));
}

const textOf = (w: Word): string => (isLiteral(w) ? w.literal : w.text);

class Collector {
  readonly programs: ProgramUse[] = [];
  readonly unresolved: Unresolved[] = [];
  readonly redirections: RedirectUse[] = [];
  canonical = '';
  readonly #resolver: ProgramResolver;
  readonly #maxDepth: number;

  constructor(o: IntentOptions) {
    this.#resolver = new ProgramResolver({ cwd: o.cwd, ...(o.path !== undefined ? { path: o.path } : {}), ...(o.writable ? { writable: o.writable } : {}) });
    this.#maxDepth = o.maxDepth ?? 4;
  }

  async script(source: string, wrappers: readonly string[], depth: number, context: readonly string[]): Promise<void> {
    if (depth > this.#maxDepth) {
      this.unresolved.push({ reason: 'too_deep', text: source.slice(0, 200) });
      return;
    }
    const top = depth === 0 && wrappers.length === 0;
    const parsed = await parseBash(source, { canonical: top });
    if (top) this.canonical = parsed.canonical ?? '';
    for (const e of parsed.errors) this.unresolved.push({ reason: 'parse_error', text: e });
    for (const r of parsed.redirections) this.redirections.push({ access: r.access, path: isLiteral(r.target) ? r.target.literal : null, text: r.text });
    for (const c of parsed.commands) await this.#command(c.words, parsed, wrappers, depth, [...context, ...c.context], c.text);
  }

  async #command(words: readonly Word[], parsed: ParsedScript, wrappers: readonly string[], depth: number, context: readonly string[], text: string): Promise<void> {
    const [head, ...rest] = words;
    if (!head) return; // assignments or redirections only
    if (!isLiteral(head)) {
      this.unresolved.push({ reason: 'dynamic_command_name', text });
      return;
    }
    const name = head.literal;
    const alias = parsed.aliases.get(name);
    if (alias !== undefined && !wrappers.includes(`alias ${name}`)) {
      return this.script([alias, ...rest.map(textOf)].join(' '), [...wrappers, `alias ${name}`], depth + 1, context);
    }
    if (parsed.functions.has(name)) return; // its body's commands are collected where it is defined
    if (name === 'eval' || name === 'trap') {
      const code = name === 'trap' ? rest.slice(0, 1) : rest;
      if (code.length === 0) return;
      if (!code.every(isLiteral)) {
        this.unresolved.push({ reason: 'eval', text });
        return;
      }
      return this.script(code.map(textOf).join(' '), [...wrappers, name], depth + 1, context);
    }
    if (name === 'source' || name === '.') {
      this.unresolved.push({ reason: 'source', text });
      return;
    }
    if (BUILTINS.has(name) && !name.includes('/')) return;
    await this.#program(words, wrappers, depth, context, text);
  }

  async #program(words: readonly Word[], wrappers: readonly string[], depth: number, context: readonly string[], text: string, argsFromStdin = false): Promise<void> {
    const head = words[0];
    if (!head || !isLiteral(head)) {
      if (head) this.unresolved.push({ reason: 'dynamic_command_name', text });
      return;
    }
    if (depth > this.#maxDepth) {
      this.unresolved.push({ reason: 'too_deep', text });
      return;
    }
    const resolved = await this.#resolver.resolve(head.literal);
    const name = resolved.name;
    const base = head.literal.includes('/') ? name : head.literal;
    const args = words.slice(1);
    const literalArgs = args.every(isLiteral);
    const argv = [base, ...args.map(textOf)];

    const wrapper = WRAPPERS.get(name) ?? WRAPPERS.get(base);
    if (wrapper && literalArgs) {
      const unwrapped = wrapper(argv);
      if (unwrapped === null) {
        this.unresolved.push({ reason: 'wrapper_options', text });
      } else if (unwrapped.inner.length > 0) {
        const inner = unwrapped.inner.map((literal) => ({ literal }));
        return this.#program(inner, [...wrappers, name], depth + 1, context, text, argsFromStdin || (unwrapped.argsFromStdin ?? false));
      }
      // Runs nothing else (`env` alone, `command -v`): the wrapper itself is the program, if it is one.
      if (BUILTINS.has(name) || ['command', 'exec', 'builtin', 'coproc', 'time'].includes(name)) return;
    } else if (wrapper && !literalArgs) {
      this.unresolved.push({ reason: 'wrapper_options', text });
    }
    if (UNSUPPORTED_WRAPPERS.has(name)) this.unresolved.push({ reason: 'unsupported_wrapper', text });

    const family = interpreterFamily(name);
    let runsCode = false;
    if (family !== null && SHELLS.has(family)) {
      const c = argv.findIndex((a, i) => i > 0 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
      const code = c === -1 ? undefined : args[c]; // args is argv shifted by one: the word after -c
      if (c !== -1) {
        runsCode = true;
        if (code && isLiteral(code)) await this.script(code.literal, [...wrappers, `${name} -c`], depth + 1, context);
        else this.unresolved.push({ reason: 'eval', text });
      } else {
        const file = argv.slice(1).find((a) => !a.startsWith('-'));
        runsCode = file === undefined; // reads its script from stdin
        if (file !== undefined) this.unresolved.push({ reason: 'interpreter_file', text });
      }
    } else if (family !== null) {
      const codeFlags = INTERPRETERS.get(family) ?? [];
      const awkLike = family.endsWith('awk');
      runsCode = awkLike ? !argv.includes('-f') : argv.slice(1).some((a) => codeFlags.includes(a) || codeFlags.some((f) => f.startsWith('-') && a.startsWith(`${f}=`)));
    }

    this.programs.push({
      name,
      path: resolved.path,
      args: argv.slice(1),
      dynamic_args: !literalArgs || argsFromStdin,
      wrappers,
      is_interpreter: family !== null,
      runs_code: runsCode,
      has_network_flags: hasNetworkFlags(name, argv.slice(1)),
      system: resolved.system,
      context,
    });

    // find … -exec PROG ARGS ; runs PROG per file.
    if (name === 'find' && literalArgs) {
      const all = argv.slice(1);
      for (let i = 0; i < all.length; i++) {
        if (!['-exec', '-execdir', '-ok', '-okdir'].includes(all[i] as string)) continue;
        const end = all.findIndex((a, j) => j > i && (a === ';' || a === '+'));
        const inner = all.slice(i + 1, end === -1 ? undefined : end);
        if (inner.length) await this.#program(inner.map((literal) => ({ literal })), [...wrappers, `find ${all[i]}`], depth + 1, context, text, true);
        if (end === -1) break;
        i = end;
      }
    }
  }
}

/** The intent of a bash/sh script. */
export async function shellIntent(script: string, o: IntentOptions): Promise<ShellIntent> {
  const c = new Collector(o);
  await c.script(script, [], 0, []);
  return { canonical: c.canonical, programs: c.programs, unresolved: c.unresolved, redirections: c.redirections };
}

/** The intent of an argv run without a shell (its wrappers unwrapped, `sh -c` parsed). */
export async function argvIntent(argv: readonly string[], o: IntentOptions): Promise<ShellIntent> {
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return shellIntent(quoted, o);
}
