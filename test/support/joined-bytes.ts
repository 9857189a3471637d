// Counts the bytes Buffer.concat produces while `run` runs: a test of how often a stream splitter
// joins what it holds (once a record, not once a chunk) counts work, not time.
export async function joinedBytes<T>(run: () => T | Promise<T>): Promise<{ readonly result: T; readonly joined: number }> {
  const concat = Buffer.concat;
  let joined = 0;
  Buffer.concat = (list: readonly Uint8Array[], total?: number): Buffer<ArrayBuffer> => {
    const out = concat(list, total);
    joined += out.length;
    return out;
  };
  try {
    const result = await run();
    return { result, joined };
  } finally {
    Buffer.concat = concat;
  }
}
