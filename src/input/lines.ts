// Splits a byte stream into physical lines synchronously, with a hard cap on line length. A line
// over the cap is reported (so it keeps its line number and is counted as unparsed) and its bytes
// are dropped as they arrive, so a 1 GiB file without a newline never sits in memory.
//
// Lines are found in the bytes and each is decoded on its own: as latin1 when its bytes are pure
// ASCII (the same text, several times cheaper than UTF-8 decoding), as UTF-8 otherwise. Decoding a
// whole chunk and slicing it saves little, and every slice would pin its chunk: a rule keeping one
// address string per loop would then keep the whole input alive. This replaced split2, whose
// per-line stream events cost 4–5× the CPU and whose overflow option drops long lines without a
// trace (shifting every later line number).

import { isAscii } from 'node:buffer';

export interface LineHandlers {
  line(text: string): void;
  /** A physical line longer than the cap; reported once, when the cap is crossed. */
  overlong(): void;
}

const LF = 0x0a;
const CR = 0x0d;
/** An input with no LF but a CR in its first 64 KiB has CR-only line ends. */
const LINE_END_WINDOW = 64 * 1024;

/**
 * `\n` ends a line and one `\r` before it is removed (CRLF files read like LF files). An input
 * whose first 64 KiB hold a `\r` but no `\n` has CR-only line ends (classic Mac, or a
 * capture that went through a tool that rewrote them): it is split on `\r` instead, since
 * reading it as one giant line would silently drop it. Elsewhere a lone `\r` is data. The choice
 * is made once per input, so the LF path costs one flag check per chunk. Invalid UTF-8 decodes to
 * U+FFFD; a multi-byte character split across chunks is decoded whole, since neither CR nor LF
 * occurs inside one.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Inside a line that already crossed the cap: drop everything up to the next newline. */
  private skipping = false;
  /** The byte that ends a line: LF, or CR in a CR-only input. */
  private lineEnd = LF;
  private lineEndKnown = false;
  /** Bytes at the input's start that decide its line end (see learnLineEnd). */
  private readonly decideAt: number;

  constructor(
    /** In bytes, not counting the line end. */
    private readonly maxLength: number,
    private readonly handlers: LineHandlers,
  ) {
    this.decideAt = Math.min(LINE_END_WINDOW, maxLength);
  }

  write(chunk: Buffer): void {
    if (!this.lineEndKnown && this.learnLineEnd(chunk)) return;
    const lineEnd = this.lineEnd;
    let start = 0;
    const ascii = isAscii(chunk);
    for (let nl = chunk.indexOf(lineEnd); nl !== -1; nl = chunk.indexOf(lineEnd, start)) {
      if (this.skipping) {
        this.skipping = false;
      } else if (this.pendingLength > 0) {
        this.pending.push(chunk.subarray(start, nl));
        const joined = Buffer.concat(this.pending);
        this.pending = [];
        this.pendingLength = 0;
        this.deliver(joined, 0, joined.length, isAscii(joined));
      } else {
        this.deliver(chunk, start, nl, ascii);
      }
      start = nl + 1;
    }
    if (this.skipping || start === chunk.length) return;
    // Copied: callers may reuse the chunk's memory for the next read (see fileRange).
    this.pending.push(Buffer.from(start === 0 ? chunk : chunk.subarray(start)));
    this.pendingLength += chunk.length - start;
    if (this.pendingLength > this.maxLength + 1) {
      // +1 leaves room for the CR of a CRLF line that is exactly at the cap.
      this.pending = [];
      this.pendingLength = 0;
      this.skipping = true;
      this.handlers.overlong();
    }
  }

  /** The input broke off: a line cut by a read error is not data, so it is dropped, not delivered. */
  abandon(): void {
    this.pending = [];
    this.pendingLength = 0;
    this.skipping = false;
  }

  end(): void {
    if (!this.lineEndKnown && this.pending.some((b) => b.includes(CR))) this.splitOnCr(Buffer.alloc(0));
    this.lineEndKnown = true;
    if (!this.skipping && this.pendingLength > 0) {
      const rest = Buffer.concat(this.pending);
      this.deliver(rest, 0, rest.length, isAscii(rest));
    }
    this.pending = [];
    this.pendingLength = 0;
    this.skipping = false;
  }

  /**
   * Decided on the input's first bytes, whatever the chunking: an LF among them means LF (or CRLF)
   * line ends; none, but a CR, means CR-only. Until then the bytes wait as a pending line. True
   * when the chunk was consumed (re-split on CR).
   */
  private learnLineEnd(chunk: Buffer): boolean {
    const seen = this.pendingLength;
    const lf = chunk.indexOf(LF);
    if (lf !== -1 && seen + lf < this.decideAt) {
      this.lineEndKnown = true;
      return false;
    }
    if (lf === -1 && seen + chunk.length < this.decideAt) return false;
    this.lineEndKnown = true;
    const crInWindow = this.pending.some((b) => b.includes(CR)) || chunk.subarray(0, this.decideAt - seen).includes(CR);
    if (!crInWindow) return false;
    this.splitOnCr(chunk);
    return true;
  }

  private splitOnCr(chunk: Buffer): void {
    this.lineEnd = CR;
    const joined = Buffer.concat([...this.pending, chunk]);
    this.pending = [];
    this.pendingLength = 0;
    this.write(joined);
  }

  private deliver(bytes: Buffer, start: number, end: number, ascii: boolean): void {
    if (this.lineEnd === CR) {
      // Ignored LF after a CR, should an LF turn up later in a CR-only input.
      if (start < end && bytes[start] === LF) start++;
    } else if (end > start && bytes[end - 1] === CR) end--;
    if (end - start > this.maxLength) this.handlers.overlong();
    else this.handlers.line(bytes.toString(ascii ? 'latin1' : 'utf8', start, end));
  }
}
