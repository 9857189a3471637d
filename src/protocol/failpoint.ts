// Fault injection for the crash-recovery matrix (issue 21; test/runtime/failpoints.test.ts). It
// lives in protocol/, the lowest layer, so the runtime, the store's receipt writer, the sandbox
// and the resources layer can all call it.
// A failpoint kills the whole process with SIGKILL at a named stage boundary: no cleanup, no
// finally blocks, no pending writes flushed, exactly what a crash or an OOM kill leaves behind.
// It is armed only by TOOLGATE_FAILPOINT, a test-only environment variable read once when this
// module loads (one name, or several separated by commas: the first reached kills); unarmed, a
// failpoint costs one comparison. Nothing ships armed.
//
// The points, in the order a call reaches them:
//   after_claim     the effect record is claimed (durable), nothing sent
//   after_intent    markSent stored the tool's intent (record `sent`), the call not yet told
//   after_sent      markSent returned to the tool, before it starts its effect
//   during_effect   part of the effect is visible: a file moved into place (more may follow),
//                   a tree moved to the trash before removal, a rename done before its syncs,
//                   a command that has written its first output, a provider's, remote's or
//                   upstream's answer arrived, a subtask made, ended or completed but not all
//                   of it (each tool's point: docs/conformance.md)
//   before_receipt  the tool returned; the receipt is about to be committed
//   during_commit   the receipt writer appended the receipt and settled the record in SQLite,
//                   before the WAL is synced and the call answered; in PostgreSQL, the receipt
//                   batch's transaction committed, the call not answered
export const FAILPOINTS = ['after_claim', 'after_intent', 'after_sent', 'during_effect', 'before_receipt', 'during_commit'] as const;
export type Failpoint = (typeof FAILPOINTS)[number];

/** The test-only environment variable that arms one failpoint by name. */
export const FAILPOINT_ENV = 'TOOLGATE_FAILPOINT';

const armed: ReadonlySet<string> | null = process.env[FAILPOINT_ENV] ? new Set(process.env[FAILPOINT_ENV].split(',')) : null;

/** SIGKILLs this process when `name` is an armed failpoint; otherwise nothing. */
export function failpoint(name: Failpoint): void {
  if (armed !== null && armed.has(name)) process.kill(process.pid, 'SIGKILL');
}
