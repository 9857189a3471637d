// A server opened on a runtime with a compatibility profile lists the profile's tools — the
// original names, schemas and descriptions — instead of the native ones: one clear surface, the
// one the agent was trained on (docs/profiles.md). Each call goes through `runtime.profile.call`
// (one envelope through the whole pipeline); the text is the original's, the receipt id and
// status are in `_meta` as for native calls.
import type { Tool } from '@modelcontextprotocol/server';
import type { ProfileAnswer, ProfileRunner } from '../profiles/index.js';

export function profileToolDefinitions(runner: ProfileRunner): Tool[] {
  return runner.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: { ...t.inputSchema, type: 'object' as const },
    _meta: { 'toolgate/profile': runner.profile.name },
  }));
}

export interface ProfileCallResult {
  [key: string]: unknown;
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly isError?: true;
  readonly _meta: Record<string, unknown>;
}

export function profileCallResult(answer: ProfileAnswer, profile: string): ProfileCallResult {
  const r = answer.receipt;
  const meta: Record<string, unknown> = {
    'toolgate/profile': profile,
    ...(r === null
      ? { 'toolgate/status': 'refused', 'toolgate/error_code': answer.code }
      : { 'toolgate/receipt_id': r.receipt_id, 'toolgate/status': r.status, 'toolgate/task_id': r.task_id, 'toolgate/tool': r.tool, 'toolgate/tool_version': r.tool_version }),
    ...(answer.code === null ? {} : { 'toolgate/error_code': answer.code }),
  };
  return { content: [{ type: 'text', text: answer.text }], ...(answer.isError ? { isError: true as const } : {}), _meta: meta };
}
