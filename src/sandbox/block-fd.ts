// bubblewrap's block fd, made so that only the runtime's "go" starts the command.
//
// bubblewrap's init reads one byte from its block fd before it starts the command, and takes
// end-of-file as the same go. When the runtime died between the intent's durable write and the
// release (a crash, SIGKILL), its end closed and the command started anyway, unsupervised: the
// PostgreSQL failpoint matrix once saw shell.exec leave a torn effect at after_intent. So the
// block fd is a pipe, not one of Node's socket pairs, and the wrapper reopens it read-write
// (`exec 4<>/proc/self/fd/4`) before it execs bubblewrap: the init then holds a writer of its
// own and never sees end-of-file. Without the runtime's byte it waits until it is killed: by
// teardown, or, after a crash, by the next runtime's sweep of the dead runtime's cgroups
// (cgroups.ts). The read end is made mode 0666 so that a wrapper run as another user may reopen
// it; an anonymous pipe has no path, and /proc/PID/fd of our processes is not open to others.
import { closeSync, fchmodSync, writeSync } from 'node:fs';
import { checkLibc as check, O_CLOEXEC, spawnLibc } from '../resources/index.js';

export class BlockPipe {
  /** The end the wrapper gets (close-on-exec here; spawn puts it at the block fd's number). */
  readonly read: number;
  #write: number | null;
  #readOpen = true;

  private constructor(read: number, write: number) {
    this.read = read;
    this.#write = write;
  }

  /** A new pipe; null where pipe2 is not reachable (no koffi): the caller keeps a socket pair. */
  static create(): BlockPipe | null {
    const c = spawnLibc();
    if (c === null) return null;
    const fds = new Int32Array(2);
    check(c.pipe2(fds, O_CLOEXEC), 'pipe2');
    const pipe = new BlockPipe(fds[0] as number, fds[1] as number);
    try {
      fchmodSync(pipe.read, 0o666);
    } catch (e) {
      pipe.close();
      throw e;
    }
    return pipe;
  }

  /** The line that makes the wrapper's copy read-write, so that its end-of-file never comes. */
  static reopenLine(fd: number): string {
    return `exec ${fd}<>/proc/self/fd/${fd} || exit 125`;
  }

  /** Closes our copy of the read end, once the child holds its own. */
  closeRead(): void {
    if (!this.#readOpen) return;
    this.#readOpen = false;
    closeSync(this.read);
  }

  /** The go: one byte (an empty pipe takes it without blocking), then our end is closed. */
  release(): void {
    if (this.#write === null) return;
    try {
      writeSync(this.#write, 'x');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EPIPE') throw e; // bubblewrap is gone already
    } finally {
      this.close();
    }
  }

  /** Closes what is still open here; the wrapper's init, if any, keeps waiting until killed. */
  close(): void {
    this.closeRead();
    if (this.#write === null) return;
    closeSync(this.#write);
    this.#write = null;
  }
}
