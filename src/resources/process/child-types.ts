// What runChild (child.ts) and spawnChild (spawn-child.ts) take and give, apart from both.

export interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  /** True when we stopped it (abort or `stop()`), not when it ended by itself. */
  readonly killed: boolean;
}

export interface ChildOptions {
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** Receives stdout chunks; return false to stop the process early. */
  readonly onStdout: (chunk: Buffer) => boolean | void;
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Open descriptors handed to the child as its fds 3, 4, … (`/proc/self/fd/<3 + i>` there).
   * They are closed here as soon as the child holds its copies (or could not start).
   */
  readonly fds?: readonly number[];
}
