// Splits a byte stream into physical lines synchronously, with a hard cap on line length. A line
// over the cap is reported (so it keeps its line number and is counted as unparsed) and its bytes
// are dropped as they arrive, so a 1 GiB file without a newline never sits in memory.

import { StringDecoder } from 'node:string_decoder';

export interface LineHandlers {
  line(text: string): void;
  /** A physical line longer than the cap; reported once, when the cap is crossed. */
  overlong(): void;
}

/**
 * `\n` ends a line and one `\r` before it is removed (CRLF files read like LF files). A lone `\r`
 * is data: no Linkerd, kubectl or dig output uses classic-Mac line ends. Invalid UTF-8 decodes to
 * U+FFFD; a multi-byte character split across chunks is decoded whole.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending: string[] = [];
  private pendingLength = 0;
  /** Inside a line that already crossed the cap: drop everything up to the next newline. */
  private skipping = false;

  constructor(
    private readonly maxLength: number,
    private readonly handlers: LineHandlers,
  ) {}

  write(chunk: Buffer): void {
    this.take(this.decoder.write(chunk));
  }

  end(): void {
    this.take(this.decoder.end());
    if (!this.skipping && this.pendingLength > 0) this.deliver(this.pending.join(''));
    this.pending = [];
    this.pendingLength = 0;
    this.skipping = false;
  }

  private take(text: string): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (this.skipping) {
        this.skipping = false;
      } else if (this.pendingLength > 0) {
        this.pending.push(text.slice(start, nl));
        const joined = this.pending.join('');
        this.pending = [];
        this.pendingLength = 0;
        this.deliver(joined);
      } else {
        this.deliver(text.slice(start, nl));
      }
      start = nl + 1;
    }
    if (this.skipping || start === text.length) return;
    const rest = start === 0 ? text : text.slice(start);
    this.pending.push(rest);
    this.pendingLength += rest.length;
    if (this.pendingLength > this.maxLength + 1) {
      // +1 leaves room for the CR of a CRLF line that is exactly at the cap.
      this.pending = [];
      this.pendingLength = 0;
      this.skipping = true;
      this.handlers.overlong();
    }
  }

  private deliver(line: string): void {
    const text = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    if (text.length > this.maxLength) this.handlers.overlong();
    else this.handlers.line(text);
  }
}
