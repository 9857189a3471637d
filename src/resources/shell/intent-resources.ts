// What a shell.exec call (or a shell.session command) will run, as resources: every program its argv or script runs
// (resources/shell: the bash grammar, wrappers unwrapped, each program resolved to its file) and
// the files its redirections name. Policy sees `pytest -q; curl … | sh` as pytest, curl and sh,
// not as one argv (docs/shell-intent.md).
import { isAbsolute, join, relative } from 'node:path';
import { ToolgateError, type ProgramResource, type Resource } from '../../protocol/index.js';
import type { Workspace } from '../paths/workspace.js';
import { argvIntent, shellIntent, type ShellIntent } from './intent.js';

/** More programs than this in one call are named by the first ones, and the rest as unresolved. */
export const MAX_PROGRAMS = 256;

export interface IntentResources {
  readonly resources: readonly Resource[];
  readonly intent: ShellIntent;
}

function programOf(p: ShellIntent['programs'][number]): ProgramResource {
  return {
    kind: 'program',
    name: p.name,
    path: p.path,
    args: p.args,
    wrappers: p.wrappers,
    is_interpreter: p.is_interpreter,
    runs_code: p.runs_code,
    has_network_flags: p.has_network_flags,
    system: p.system,
    unresolved: null,
  };
}

/** A program entry for what could not be resolved, and why (a program policy refuses it). */
export function unresolvedOf(reason: string): ProgramResource {
  return { kind: 'program', name: '', path: null, args: [], wrappers: [], is_interpreter: false, runs_code: false, has_network_flags: false, system: false, unresolved: reason };
}

/**
 * The program and redirection resources of a call. `cwd` is the workspace-relative directory
 * it starts in, `path` the PATH it runs with. A redirection outside the workspace (/dev/null, the
 * sandbox's own /tmp) is the sandbox's business and names no workspace path.
 */
export async function intentResources(
  command: { readonly argv?: readonly string[] | undefined; readonly script?: string | undefined },
  ctx: { readonly workspace: Workspace },
  cwd: string,
  path: string,
): Promise<IntentResources> {
  const root = ctx.workspace.root;
  const cwdAbs = cwd === '.' ? root : join(root, cwd);
  const o = { cwd: cwdAbs, path, writable: [root] };
  const intent = command.argv ? await argvIntent(command.argv, o) : await shellIntent(command.script ?? '', o);

  const seen = new Set<string>();
  const programs: ProgramResource[] = [];
  for (const p of intent.programs.map(programOf)) {
    const key = JSON.stringify(p);
    if (seen.has(key)) continue;
    seen.add(key);
    programs.push(p);
  }
  for (const reason of new Set(intent.unresolved.map((u) => u.reason))) programs.push(unresolvedOf(reason));
  const named = programs.length > MAX_PROGRAMS ? [...programs.slice(0, MAX_PROGRAMS - 1), unresolvedOf('too_many_programs')] : programs;

  const files: Resource[] = [];
  for (const r of intent.redirections) {
    if (r.path === null) continue;
    const abs = isAbsolute(r.path) ? r.path : join(cwdAbs, r.path);
    const rel = relative(root, abs);
    if (rel.startsWith('..') || isAbsolute(rel)) continue;
    let resolved: string;
    try {
      resolved = ctx.workspace.resolve(rel === '' ? '.' : rel).path;
    } catch (e) {
      // A target under a directory that does not exist yet: the command fails to open it.
      if (ToolgateError.isInstance(e) && e.code === 'not_found') continue;
      throw e;
    }
    const access = r.access === 'read' ? 'read' : 'write';
    if (!files.some((f) => f.kind === 'path' && f.path === resolved && f.access === access)) files.push({ kind: 'path', path: resolved, access });
  }
  return { resources: [...files, ...named], intent };
}
