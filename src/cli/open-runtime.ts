import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime/index.js';

/** Opens a runtime for a command: workspace defaults to the current directory. */
export function openRuntime(values: { workspace?: string | undefined; 'state-dir'?: string | undefined }, extra: Partial<RuntimeOptions> = {}): Runtime {
  return createRuntime({
    workspace: values.workspace ?? process.cwd(),
    ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}),
    ...extra,
  });
}
