// One Sandbox per workspace root and hidden set, kept for the life of the tool that runs
// commands in it (shell.exec, shell.session): a Sandbox holds the detected host and its
// cgroup parent, which need not be found again for each command.
import { Sandbox, type SandboxOptions } from './sandbox.js';

/** Workspace-relative path → class: the runtime's classifier, configured patterns included. */
export interface Classifier {
  classify(relPath: string): ReturnType<NonNullable<SandboxOptions['classify']>>;
}

export type SandboxDefaults = Omit<SandboxOptions, 'workspace' | 'hide' | 'classify' | 'cacheDir'>;

export type SandboxFor = ((root: string, hide: readonly string[], classifier: Classifier, cacheDir?: string | null) => Sandbox) & {
  /** Ends every sandbox's spare wrapper and workspace watch (the tool's dispose, when the runtime closes). */
  readonly closeAll: () => void;
};

export function sandboxCache(defaults: SandboxDefaults): SandboxFor {
  const sandboxes = new Map<string, Sandbox>();
  const closeAll = (): void => {
    for (const sb of sandboxes.values()) sb.close();
    sandboxes.clear();
  };
  const get = (root: string, hide: readonly string[], classifier: Classifier, cacheDir?: string | null): Sandbox => {
    const key = JSON.stringify([root, hide, cacheDir ?? null]);
    let sb = sandboxes.get(key);
    if (!sb) {
      // The runtime's classification decides what is masked.
      sb = new Sandbox({ ...defaults, workspace: root, hide, classify: (rel) => classifier.classify(rel), ...(cacheDir ? { cacheDir } : {}) });
      sandboxes.set(key, sb);
    }
    return sb;
  };
  return Object.assign(get, { closeAll });
}
