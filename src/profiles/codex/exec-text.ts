// Codex's exec output texts (shared/toolsurf/codex/: shell, shell_command, exec_command): the
// freeform form the GPT-5 models read — `Exit code: N\nWall time: S seconds\nOutput:\n…` — and
// unified exec's `Chunk ID … Process exited with code N | Process running with session ID ID`.

/** Codex estimates tokens as bytes / 4. */
export function tokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text) / 4);
}

/** Codex's middle cut to a token budget: head, `…K tokens truncated…`, tail. */
export function truncateToTokens(text: string, maxTokens: number | undefined): string {
  if (maxTokens === undefined || tokenCount(text) <= maxTokens) return text;
  const keep = Math.max(0, maxTokens * 4);
  const head = text.slice(0, Math.floor(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  return `${head}…${tokenCount(text) - maxTokens} tokens truncated…${tail}`;
}

export function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

export function freeformExec(exitCode: number, durationMs: number, output: string): string {
  return `Exit code: ${exitCode}\nWall time: ${seconds(durationMs)} seconds\nOutput:\n${output}`;
}

export function unifiedExec(chunk: string, durationMs: number, state: { exited: number } | { running: number }, output: string, maxTokens: number | undefined): string {
  const status = 'exited' in state ? `Process exited with code ${state.exited}` : `Process running with session ID ${state.running}`;
  return `Chunk ID: ${chunk}\nWall time: ${seconds(durationMs)} seconds\n${status}\nOriginal token count: ${tokenCount(output)}\nOutput:\n${truncateToTokens(output, maxTokens)}`;
}
