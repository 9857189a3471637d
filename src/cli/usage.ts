import { StartupError } from '../protocol/index.js';

/** A command-line mistake: a start-up error with code `usage`, printed with the command's help, exit code 2. */
export class UsageError extends StartupError<'usage'> {
  constructor(message: string) {
    super('usage', message);
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
