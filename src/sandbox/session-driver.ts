// The bash driver that a shell.session sandbox runs, and the parser of what it reports.
//
// The driver reads commands from fd 5 (NUL-terminated: sequence number, nonce, script) and runs
// each with `eval` in its own, main shell, so that `cd`, `export`, functions and `source venv/bin/
// activate` persist. The command's stdin is a FIFO the runtime holds (`write`, `C-d`); the
// control fds are closed for it. After the command, the driver writes a sync marker carrying the
// command's fresh nonce to stdout and stderr (what precedes it is the command's output), then its
// exit status, cwd and exported environment to fd 6, a separate pipe: the status is never parsed
// out of output a command could forge. Code that runs in the session's shell itself (not a child)
// shares the driver's process and is trusted with its own report like its exit code (docs/shell-session.md).

import { StringDecoder } from 'node:string_decoder';

/** Where the host directory of per-command stdin FIFOs is bound inside the sandbox. */
export const SESSION_FIFO_DIR = '/run/toolgate-session';

/** fds of the driver: commands in, status out (after bubblewrap's info and block fds 3 and 4). */
export const COMMAND_FD = 5;
export const STATUS_FD = 6;

/** The marker that ends one command's output on stdout and stderr. */
export function syncMarker(nonce: string): Buffer {
  return Buffer.from(`\x1eTG${nonce}\x1e`, 'latin1');
}

export const DRIVER_SCRIPT = [
  // fd 7 and 8 keep the session's own stdout and stderr, so a command's `exec >file` cannot swallow the markers.
  'exec 3>&- 4>&- 0</dev/null 7>&1 8>&2',
  '__tg_report() {',
  `  { printf '%s\\0%s\\0' "$1" "$2"; printf '%s\\0' "$(pwd -P 2>/dev/null)"; command -p env -0; printf 'E\\0'; } >&${STATUS_FD}`,
  '}',
  '__tg_report 0 0',
  `while IFS= read -r -d '' __tg_seq <&${COMMAND_FD} && IFS= read -r -d '' __tg_nonce <&${COMMAND_FD} && IFS= read -r -d '' __tg_cmd <&${COMMAND_FD}; do`,
  `  { eval "$__tg_cmd"; } <"${SESSION_FIFO_DIR}/in.$__tg_seq" ${COMMAND_FD}<&- ${STATUS_FD}>&- 7>&- 8>&-`,
  '  __tg_status=$?',
  "  printf '\\036TG%s\\036' \"$__tg_nonce\" >&7",
  "  printf '\\036TG%s\\036' \"$__tg_nonce\" >&8",
  '  __tg_report "$__tg_seq" "$__tg_status"',
  'done',
].join('\n');

/** One report of the driver: after the command with sequence `seq` (0: the session's start). */
export interface DriverReport {
  readonly seq: number;
  readonly status: number;
  /** Physical cwd inside the sandbox; '' when it no longer exists. */
  readonly cwd: string;
  /** The shell's exported environment. */
  readonly env: Readonly<Record<string, string>>;
}

/** Variables the shell sets on its own at every command: never reported as changes. */
const SHELL_OWN = new Set(['_', 'SHLVL', 'PWD', 'OLDPWD']);

/** Reads NUL-separated driver reports from the status pipe, chunk by chunk. */
export class DriverReportParser {
  readonly #decoder = new StringDecoder('utf8');
  #carry = '';
  #fields: string[] = [];

  /** Takes a chunk; returns the reports it completed. */
  push(chunk: Buffer): DriverReport[] {
    const out: DriverReport[] = [];
    const parts = (this.#carry + this.#decoder.write(chunk)).split('\0');
    this.#carry = parts.pop() ?? '';
    for (const field of parts) {
      // An env entry always holds '=': a bare `E` after the cwd is the end of the report.
      if (field === 'E' && this.#fields.length >= 3) {
        out.push(this.#report(this.#fields));
        this.#fields = [];
      } else this.#fields.push(field);
    }
    return out;
  }

  #report(f: readonly string[]): DriverReport {
    const env: Record<string, string> = {};
    for (const entry of f.slice(3)) {
      const eq = entry.indexOf('=');
      const name = entry.slice(0, eq);
      if (eq > 0 && !SHELL_OWN.has(name)) env[name] = entry.slice(eq + 1);
    }
    return { seq: Number(f[0]), status: Number(f[1]), cwd: f[2] ?? '', env };
  }
}

export interface EnvChanges {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

export function envChanges(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): EnvChanges {
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [k, v] of Object.entries(after)) {
    if (!(k in before)) added.push(k);
    else if (before[k] !== v) changed.push(k);
  }
  for (const k of Object.keys(before)) if (!(k in after)) removed.push(k);
  return { added: added.sort(), changed: changed.sort(), removed: removed.sort() };
}
