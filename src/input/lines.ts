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
import { TextDecoder } from 'node:util';

export interface LineHandlers {
  line(text: string): void;
  /** A physical line longer than the cap; reported once, when the cap is crossed. */
  overlong(): void;
}

const LF = 0x0a;
const CR = 0x0d;
/** Bytes looked at to tell UTF-16 from UTF-8 (or Latin-1). */
const ENCODING_WINDOW = 512;

/**
 * 'utf-16le' or 'utf-16be' when the head holds the NUL pattern of mostly-ASCII text in that byte
 * order; a byte order mark lowers the share of NULs needed (text in other scripts has fewer),
 * but is not enough alone: FF FE or FE FF before ASCII text is a damaged UTF-8 file.
 */
export function utf16Of(head: Buffer): 'utf-16le' | 'utf-16be' | null {
  const bom =
    head.length >= 2 && head[0] === 0xff && head[1] === 0xfe ? 'utf-16le' : head.length >= 2 && head[0] === 0xfe && head[1] === 0xff ? 'utf-16be' : null;
  const from = bom ? 2 : 0;
  const pairs = Math.floor((Math.min(head.length, ENCODING_WINDOW) - from) / 2);
  if (pairs < (bom ? 1 : 4)) return bom;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[from + 2 * i] === 0) evenNul++;
    if (head[from + 2 * i + 1] === 0) oddNul++;
  }
  const needed = bom ? 0.3 : 0.7;
  if (bom !== 'utf-16be' && oddNul >= pairs * needed && evenNul <= pairs * 0.05) return 'utf-16le';
  if (bom !== 'utf-16le' && evenNul >= pairs * needed && oddNul <= pairs * 0.05) return 'utf-16be';
  return null;
}

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

  /** How the input's bytes are encoded: told from its first bytes (see learnEncoding). */
  private utf16: TextDecoder | null = null;
  private encodingKnown = false;
  private head: Buffer[] = [];
  private headLength = 0;

  write(chunk: Buffer): void {
    if (!this.encodingKnown) {
      // A first chunk that holds the window is decided on as it is: copying it (often a whole pod
      // file, read in one go) cost two copies of every byte of a 400-file bundle, 4 % of its CPU.
      if (this.headLength === 0 && chunk.length >= ENCODING_WINDOW) return this.learnEncoding(chunk);
      // Copied: the caller may reuse the chunk's memory.
      this.head.push(Buffer.from(chunk));
      this.headLength += chunk.length;
      if (this.headLength < ENCODING_WINDOW) return;
      this.learnEncoding();
      return;
    }
    if (this.utf16) {
      // Decoded to UTF-8 as it streams; a character cut between chunks is held by the decoder.
      const text = this.utf16.decode(chunk, { stream: true });
      if (text !== '') this.writeBytes(Buffer.from(text, 'utf8'));
      return;
    }
    this.writeBytes(chunk);
  }

  /**
   * UTF-16 (what PowerShell 5.1's `>` and `Out-File` write) is decoded before lines are split:
   * read as bytes, every other byte is a NUL and no line matches. Told by its byte order mark,
   * or, without one, by the NUL pattern of ASCII text in the first bytes: most odd (LE) or even
   * (BE) bytes NUL and hardly any of the others. UTF-8 text holds no NULs.
   */
  private learnEncoding(first?: Buffer): void {
    this.encodingKnown = true;
    const head = first ?? Buffer.concat(this.head);
    this.head = [];
    this.headLength = 0;
    const encoding = utf16Of(head);
    if (encoding) this.utf16 = new TextDecoder(encoding);
    this.write(head);
  }

  private writeBytes(chunk: Buffer): void {
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
    // The complete lines of a short head were read; only the line cut off is dropped.
    if (!this.encodingKnown) this.learnEncoding();
    this.pending = [];
    this.pendingLength = 0;
    this.skipping = false;
  }

  end(): void {
    if (!this.encodingKnown) this.learnEncoding();
    if (this.utf16) {
      const rest = this.utf16.decode();
      if (rest !== '') this.writeBytes(Buffer.from(rest, 'utf8'));
    }
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
    this.writeBytes(joined);
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
