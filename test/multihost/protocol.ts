// What the test process and a host child (host-child.ts) say to each other over IPC.
import type { TaskGrant } from '../../src/runtime/index.js';

export interface HostConfig {
  readonly workspace: string;
  readonly stateDir: string;
  readonly store: { readonly kind: 'postgres'; readonly url: string } | { readonly kind: 'sqlite'; readonly dir: string };
  /** The probe tool's ledger: the effect, in a place every host sees (an external system). */
  readonly ledger: string;
  readonly grant?: TaskGrant;
  readonly policy?: string;
  readonly artifactsFolder?: string;
}

export type HostRequest =
  | { readonly op: 'call'; readonly envelope: Record<string, unknown>; readonly stop?: 'kill-at-commit' | 'kill-after-sent' | 'hold-at-commit' }
  | { readonly op: 'resume' }
  | { readonly op: 'pending-approvals' }
  | { readonly op: 'approve'; readonly id: string; readonly by: string }
  | { readonly op: 'usage'; readonly task: string }
  | { readonly op: 'reconcile' }
  | { readonly op: 'verify' }
  | { readonly op: 'close' };

export type HostReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: 'reply'; readonly id: number; readonly ok: false; readonly error: { readonly code: string; readonly message: string } };
