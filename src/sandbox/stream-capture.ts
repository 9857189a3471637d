import type { ArtifactRef } from '../protocol/index.js';
import type { ArtifactWriter } from '../registry/index.js';
import { SecretFilter } from './secret-filter.js';

export type StreamName = 'stdout' | 'stderr';

/** What the result says about one output stream. */
export interface StreamSummary {
  /** Head and tail of the recorded stream, joined by a marker naming the omitted byte count. */
  readonly preview: string;
  /** Bytes the command wrote to the stream, including any past the output cap. */
  readonly bytes: number;
  /** Bytes of the recorded stream that the preview leaves out (all of them are in `artifact`). */
  readonly omitted_bytes: number;
  /** Lines of the recorded stream; a last line without a newline counts (`printf 'a\nb'` is 2). */
  readonly lines: number;
  /**
   * Lines the preview leaves out whole. A line cut by the head/tail boundary is shown in part and
   * is not counted here (its missing bytes are in `omitted_bytes`), so lines shown in whole or in
   * part plus `omitted_lines` is `lines`.
   */
  readonly omitted_lines: number;
  /** The whole recorded stream, when it did not fit inline. */
  readonly artifact: ArtifactRef | null;
}

export interface CaptureOptions {
  readonly name: StreamName;
  readonly headBytes: number;
  readonly tailBytes: number;
  /** Hard cap on what the command may write to this stream. */
  readonly capBytes: number;
  readonly secrets: readonly string[];
  /** Opened only when the stream outgrows the inline preview. */
  readonly openArtifact: (() => ArtifactWriter) | null;
}

/** Length of the longest prefix of `buf` that does not end inside a UTF-8 sequence. */
function charBoundaryBefore(buf: Buffer): number {
  let i = buf.length;
  let back = 0;
  while (i > 0 && back < 4 && ((buf[i - 1] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return buf.length;
  const lead = buf[i - 1] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === back + 1 ? buf.length : i - 1;
}

const NEWLINE = 0x0a;

function newlinesIn(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** Index of the first byte of `buf` that starts a UTF-8 character. */
function charBoundaryAfter(buf: Buffer): number {
  let i = 0;
  while (i < buf.length && i < 3 && ((buf[i] as number) & 0xc0) === 0x80) i++;
  return i;
}

export function omissionMarker(omitted: number): string {
  return `\n[… ${omitted} bytes omitted …]\n`;
}

/**
 * Captures one stream: counts it, redacts injected secrets, keeps a bounded head and tail,
 * and streams the whole (redacted) stream to an artifact once it outgrows the inline preview.
 * Memory stays at head + tail + one read, whatever the command writes.
 */
export class StreamCapture {
  readonly name: StreamName;
  readonly #o: CaptureOptions;
  readonly #filter: SecretFilter;
  readonly #head: Buffer;
  #headLen = 0;
  #tail: Buffer[] = [];
  #tailLen = 0;
  /** Everything recorded while it still fits inline. */
  #pending: Buffer[] | null = [];
  #recorded = 0;
  /** Newlines of the recorded stream, and whether it ends with one (a partial last line counts). */
  #newlines = 0;
  #endsWithNewline = false;
  #writer: ArtifactWriter | null = null;
  #artifactError: string | null = null;
  bytes = 0;
  capped = false;

  constructor(o: CaptureOptions) {
    this.name = o.name;
    this.#o = o;
    this.#filter = new SecretFilter(o.secrets);
    this.#head = Buffer.allocUnsafe(o.headBytes);
  }

  get secretsReplaced(): number {
    return this.#filter.replaced;
  }

  get artifactError(): string | null {
    return this.#artifactError;
  }

  /** Takes one read; returns true the first time the cap is crossed. */
  push(chunk: Buffer): boolean {
    const before = this.bytes;
    this.bytes += chunk.length;
    if (this.capped) return false;
    let take = chunk;
    let crossed = false;
    if (this.bytes > this.#o.capBytes) {
      take = chunk.subarray(0, Math.max(0, this.#o.capBytes - before));
      this.capped = crossed = true;
    }
    this.#record(this.#filter.push(take));
    return crossed;
  }

  #record(data: Buffer): void {
    if (data.length === 0) return;
    this.#recorded += data.length;
    this.#newlines += newlinesIn(data);
    this.#endsWithNewline = data[data.length - 1] === NEWLINE;
    if (this.#headLen < this.#head.length) {
      this.#headLen += data.copy(this.#head, this.#headLen, 0, Math.min(data.length, this.#head.length - this.#headLen));
    }
    this.#tail.push(data);
    this.#tailLen += data.length;
    while (this.#tail.length > 1 && this.#tailLen - (this.#tail[0] as Buffer).length >= this.#o.tailBytes) {
      this.#tailLen -= (this.#tail.shift() as Buffer).length;
    }
    if (this.#pending) {
      this.#pending.push(data);
      if (this.#recorded > this.#o.headBytes + this.#o.tailBytes) {
        const pending = this.#pending;
        this.#pending = null;
        this.#openWriter();
        for (const p of pending) this.#write(p);
      }
    } else this.#write(data);
  }

  #openWriter(): void {
    if (!this.#o.openArtifact) return;
    try {
      this.#writer = this.#o.openArtifact();
    } catch (e) {
      this.#artifactError = `${this.name} artifact could not be opened: ${(e as Error).message}`;
    }
  }

  #write(data: Buffer): void {
    if (!this.#writer) return;
    try {
      this.#writer.write(data);
    } catch (e) {
      this.#artifactError = `${this.name} artifact write failed: ${(e as Error).message}`;
      this.#writer.abort();
      this.#writer = null;
    }
  }

  /** Seals the artifact and builds the summary. */
  finish(): StreamSummary {
    this.#record(this.#filter.flush());
    if (this.#pending) {
      const all = Buffer.concat(this.#pending);
      this.#pending = null;
      return { preview: all.toString('utf8'), bytes: this.bytes, omitted_bytes: 0, lines: this.#lines(), omitted_lines: 0, artifact: null };
    }
    let artifact: ArtifactRef | null = null;
    if (this.#writer) {
      try {
        artifact = this.#writer.close();
      } catch (e) {
        this.#artifactError = `${this.name} artifact could not be sealed: ${(e as Error).message}`;
        this.#writer.abort();
      }
      this.#writer = null;
    }
    const head = this.#head.subarray(0, charBoundaryBefore(this.#head.subarray(0, this.#headLen)));
    const tailAll = Buffer.concat(this.#tail);
    const tailRaw = tailAll.subarray(Math.max(0, tailAll.length - this.#o.tailBytes));
    const tail = tailRaw.subarray(charBoundaryAfter(tailRaw));
    const omitted = this.#recorded - head.length - tail.length;
    // The middle's newlines end the lines it holds whole, and the head's last line when that one
    // was cut (shown in part, so not omitted). With no tail shown (a cut character), the stream's
    // unterminated last line is in the middle whole, unless it is the head's own.
    const middleNewlines = this.#newlines - newlinesIn(head) - newlinesIn(tail);
    const headCut = head.length > 0 && head[head.length - 1] !== NEWLINE;
    const lastLineInMiddle = tail.length === 0 && !this.#endsWithNewline;
    return {
      preview: head.toString('utf8') + omissionMarker(omitted) + tail.toString('utf8'),
      bytes: this.bytes,
      omitted_bytes: omitted,
      lines: this.#lines(),
      omitted_lines: Math.max(0, middleNewlines - (headCut ? 1 : 0) + (lastLineInMiddle ? 1 : 0)),
      artifact,
    };
  }

  #lines(): number {
    return this.#newlines + (this.#recorded > 0 && !this.#endsWithNewline ? 1 : 0);
  }

  /** Drops a half-written artifact (the call failed before the stream could be sealed). */
  abort(): void {
    this.#writer?.abort();
    this.#writer = null;
  }
}
