// A JSON log line copied from a terminal or a log UI comes back broken at the screen's width:
// `{"level":"warning","msg":"… User \"system:serviceaccount:linkerd:lin` on one line and
// `kerd-destination\" cannot get …","time":"…"}` on the next. Each half alone is unreadable, so the
// whole record (an RBAC refusal, here: linkerd/linkerd2#14605) was lost. This joiner sits between
// the line splitter and the sniffer/parser: a line that opens a JSON object (`{"`) and does not
// close it (no final `}`) is held, and the lines after it are appended, without a separator (a
// terminal's wrap drops no character), until the text ends with `}`. It gives up, and hands every
// held line on unchanged, when a line starts a new record, when more than MAX_PARTS lines or
// MAX_JOINED characters would be joined, or at the end of the input: nothing read is ever lost.
// A complete line costs two character tests.

export interface HeldLine {
  text: string;
  line: number;
}

/** Lines of one record a terminal wraps: 8 × 200 columns covers every log line Linkerd prints. */
const MAX_PARTS = 8;
const MAX_JOINED = 64 * 1024;

const OPEN_BRACE = 123; // {
const QUOTE = 34; // "
const CLOSE_BRACE = 125; // }

function opensJson(text: string): boolean {
  return text.charCodeAt(0) === OPEN_BRACE && text.charCodeAt(1) === QUOTE;
}

function closesJson(text: string): boolean {
  let end = text.length - 1;
  while (end >= 0 && (text.charCodeAt(end) === 32 || text.charCodeAt(end) === 13)) end--;
  return text.charCodeAt(end) === CLOSE_BRACE;
}

/**
 * A line that starts a record of its own rather than continuing a wrapped one: a new JSON
 * object, a proxy's `[  1.2s]` uptime, an RFC 3339 or Go log timestamp, a logfmt `time=`.
 */
function startsRecord(text: string): boolean {
  const c = text.charCodeAt(0);
  if (c === OPEN_BRACE || text.startsWith('time=')) return true;
  if (c === 91 /* [ */) return true;
  // 2024-06-07T… or 2019/09/30 …
  return c >= 48 && c <= 57 && text.length > 10 && (text.charCodeAt(4) === 45 || text.charCodeAt(4) === 47) && /^\d{4}[-/]\d\d[-/]\d\d[T ]/.test(text);
}

export class WrappedJsonJoiner {
  private held: HeldLine[] = [];
  private length = 0;

  constructor(private readonly emit: (text: string, line: number) => void) {}

  feed(text: string, line: number): void {
    if (this.held.length > 0) {
      if (text === '' || startsRecord(text) || this.held.length >= MAX_PARTS || this.length + text.length > MAX_JOINED) {
        this.release();
      } else {
        this.held.push({ text, line });
        this.length += text.length;
        if (closesJson(text)) {
          const first = this.held[0]!.line;
          const joined = this.held.map((h) => h.text).join('');
          this.held = [];
          this.length = 0;
          this.emit(joined, first);
        }
        return;
      }
    }
    if (opensJson(text) && !closesJson(text) && text.length < MAX_JOINED) {
      this.held.push({ text, line });
      this.length = text.length;
      return;
    }
    this.emit(text, line);
  }

  /** Hands on whatever is held, line by line, as it was read (end of input, or a wrap that never closed). */
  end(): void {
    this.release();
  }

  private release(): void {
    const held = this.held;
    this.held = [];
    this.length = 0;
    for (const h of held) this.emit(h.text, h.line);
  }
}
