import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { ClaimRequest } from '../../../src/store/index.js';

const CHILD = join(import.meta.dirname, 'child.ts');

export interface StoreProcess {
  readonly child: ChildProcess;
  /** The next line the child prints (rejects when it exits first). */
  line(): Promise<string>;
  /** Ends its stdin and waits for it to exit. */
  end(): Promise<number | null>;
}

export function storeProcess(module: string, ref: string, mode: 'claim' | 'send-and-exit', count: number, req: ClaimRequest): StoreProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, module, ref, mode, String(count), JSON.stringify(req)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const queue: string[] = [];
  const waiters: ((l: string | null) => void)[] = [];
  let closed = false;
  createInterface({ input: child.stdout as NodeJS.ReadableStream })
    .on('line', (l) => {
      const w = waiters.shift();
      if (w) w(l);
      else queue.push(l);
    })
    .on('close', () => {
      closed = true;
      for (const w of waiters.splice(0)) w(null);
    });
  return {
    child,
    line: () =>
      new Promise((resolve, reject) => {
        const q = queue.shift();
        if (q !== undefined) return resolve(q);
        if (closed) return reject(new Error('the store process ended'));
        waiters.push((l) => (l === null ? reject(new Error('the store process ended')) : resolve(l)));
      }),
    end: () => {
      child.stdin?.end();
      return exited;
    },
  };
}
