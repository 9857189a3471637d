/** A command-line mistake: printed with the command's help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  run(argv: readonly string[], io: Io): Promise<number>;
}
