import type { PostgresMigrationSet } from './migrations.js';
import { PG_CORE_MIGRATIONS, PG_POLICY_MIGRATIONS } from './migrations.js';
import { PG_KEY_MIGRATIONS } from './keys.js';
import { PG_SUBTASK_MIGRATIONS } from './subtasks.js';
import { PG_TASK_RUNTIME_MIGRATIONS } from './task-runtimes.js';
import { PG_LEDGER_MIGRATIONS } from './ledger.js';

/** Every migration set of the PostgreSQL store, in the order they apply: the store migrates them, doctor expects them. */
export const PG_MIGRATION_SETS = [PG_CORE_MIGRATIONS, PG_POLICY_MIGRATIONS, PG_KEY_MIGRATIONS, PG_SUBTASK_MIGRATIONS, PG_TASK_RUNTIME_MIGRATIONS, PG_LEDGER_MIGRATIONS] as const;

/** The version each set reaches once migrated (what `toolgate doctor` expects to find). */
export function expectedSchema(): Record<string, number> {
  return Object.fromEntries(PG_MIGRATION_SETS.map((s: PostgresMigrationSet) => [s.name, s.steps.length]));
}
