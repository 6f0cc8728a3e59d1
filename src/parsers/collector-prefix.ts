// Log collectors wrap each line in their own prefix: CRI files (`<ts> stdout F <line>`),
// `kubectl logs --timestamps` (`<ts> <line>`) and `--prefix` (`[pod/<pod>/<container>] <line>`),
// Docker json-file, and multi-pod tailers such as stern (`<pod> <container> <line>`). This module peels those off so format parsers see the
// payload, and it rejoins CRI partial (`P`) lines.

export interface CollectedLine {
  /** Collector wall time in ms since the epoch, or null. */
  time: number | null;
  stream?: 'stdout' | 'stderr';
  pod?: string;
  /** From `stern --all-namespaces`, which prints the namespace before the pod. */
  namespace?: string;
  container?: string;
  content: string;
  /** First physical line of the logical line (differs from the current line when CRI partials were joined). */
  line: number;
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC.
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const CRI = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (stdout|stderr) ([FP]) ?(.*)$/s;
/** The timestamp CRI and `kubectl logs --timestamps` prefixes start with, and the space after it. */
export const COLLECTOR_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) /;
// stern and `linkerd … logs` put `<pod> <container> ` (or just `<container> `) before the payload,
// `stern --all-namespaces` `<namespace> <pod> <container> `. stern --timestamps puts its timestamp
// after that prefix.
const TAILER =
  /^(?:([a-z0-9](?:[-a-z0-9]*[a-z0-9])?) (?=\S+ \S+ ))?([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?) (?:([a-z0-9](?:[-a-z0-9]*[a-z0-9])?) )?(?=\[ *\d|\{"|time=|(?:ERR!|WARN|INFO|DBUG|TRCE) \[|\[(?:INFO|WARNING|ERROR|DEBUG)\] |\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d )/;

/**
 * `linkerd logs` of 2019-2020 (built on stern) bracketed the origin: `[linkerd-tap-86c9f7cc98-p49b5 tap] 2019/09/30 …`
 * (linkerd/linkerd2#3497). A lower-case letter after the bracket tells it from a proxy's `[  0.1s]`
 * uptime and CoreDNS's `[INFO]`.
 */
const BRACKETED_TAILER = /^\[([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?) ([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\] /;

/** `kubectl logs --prefix` (kubectl 1.17+, for several pods or containers at once): `[pod/<pod>/<container>] `. */
const KUBECTL_PREFIX = /^\[pod\/([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)\/([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\] /;

/** Exact powers of ten up to 1e15, for reading decimal fractions without building a string. */
export const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * The whole-second part and zone of the last timestamp a reader parsed: consecutive log lines
 * share them, so most timestamps cost a comparison and the fraction instead of a Date.parse. Each
 * reader owns one (a parser, through its ParseContext), so nothing input-derived is module-level.
 */
export class TimestampMemo {
  head = '';
  zone = '';
  epochMs = Number.NaN;
}

/**
 * Parses an RFC 3339 timestamp with up to nanosecond precision into epoch milliseconds
 * (fractions below a millisecond are kept as a fraction).
 */
export function parseRfc3339(text: string, memo: TimestampMemo | null = null): number | null {
  return parseRfc3339Until(text, text.length, memo);
}

/** parseRfc3339 of text.slice(0, end), without making that slice for the common cached case. */
export function parseRfc3339Until(text: string, end: number, memo: TimestampMemo | null): number | null {
  const dot = text.indexOf('.');
  if (dot === -1 || dot >= end) {
    const ms = Date.parse(end === text.length ? text : text.slice(0, end));
    return Number.isNaN(ms) ? null : ms;
  }
  let fractionEnd = dot + 1;
  let digits = 0;
  for (let c = text.charCodeAt(fractionEnd); fractionEnd < end && c >= 48 && c <= 57; c = text.charCodeAt(++fractionEnd)) digits = digits * 10 + (c - 48);
  let whole: number;
  const zoneLength = end - fractionEnd;
  // slice === rather than startsWith, which V8 runs character by character.
  if (
    memo !== null &&
    dot === memo.head.length &&
    zoneLength === memo.zone.length &&
    text.slice(0, dot) === memo.head &&
    text.slice(fractionEnd, end) === memo.zone
  ) {
    whole = memo.epochMs;
  } else {
    const head = text.slice(0, dot);
    const zone = text.slice(fractionEnd, end);
    whole = Date.parse(head + zone);
    if (memo !== null) {
      memo.head = head;
      memo.zone = zone;
      memo.epochMs = whole;
    }
  }
  if (Number.isNaN(whole)) return null;
  const places = fractionEnd - dot - 1;
  // Up to 15 digits the integer and the power of ten are exact, so one division rounds exactly
  // like Number('0.ddd') would, without building that string.
  const fraction = places < POWERS_OF_TEN.length ? digits / POWERS_OF_TEN[places]! : Number('0' + text.slice(dot, fractionEnd));
  return whole + fraction * 1000;
}

/** A CRI partial line joined past this many characters is handed on as it is; the rest starts a new line. */
const MAX_JOINED_PARTIAL = 1 << 20;

export class CollectorPrefixReader {
  /** `times`: the reader's timestamp memo, shared with its parser's other timestamp reads. */
  constructor(private readonly times: TimestampMemo = new TimestampMemo()) {}

  private partial: { time: number | null; stream: 'stdout' | 'stderr'; parts: string[]; length: number; line: number } | null = null;
  /**
   * A partial line that had to be handed on before the line just fed (it never got its final
   * chunk, or grew past the cap). Callers take it with takeDisplaced() before the fed line, so
   * nothing read is dropped.
   */
  displaced: CollectedLine | null = null;

  takeDisplaced(): CollectedLine | null {
    const line = this.displaced;
    this.displaced = null;
    return line;
  }

  /** Returns the logical line, or null while a CRI partial line is still being assembled. */
  feed(raw: string, lineNo: number): CollectedLine | null {
    let text = raw.includes('\x1b[') ? raw.replace(ANSI, '') : raw;
    const first = text.charCodeAt(0);

    const timestamped = first >= 48 && first <= 57 && COLLECTOR_TIMESTAMP.test(text);
    const space = timestamped ? text.indexOf(' ') : -1;
    if (timestamped && (text.startsWith('stdout ', space + 1) || text.startsWith('stderr ', space + 1))) {
      const cri = this.fromCri(text, lineNo);
      if (cri !== undefined) return cri;
    }
    // Only a CRI line can continue a partial one; anything else means its final chunk is missing.
    if (this.partial) this.releasePartial();

    if (timestamped) {
      // kubectl --timestamps: the timestamp, a space, the payload.
      const time = parseRfc3339Until(text, space, this.times);
      if (time !== null) return this.withTailer(text.slice(space + 1), time, lineNo);
    }

    if (first === 123 /* { */ && text.startsWith('{"log":')) {
      const docker = parseDockerJson(text, this.times);
      if (docker) return { ...docker, line: lineNo };
    }
    text = text.endsWith('\r') ? text.slice(0, -1) : text;
    return this.withTailer(text, null, lineNo);
  }

  private releasePartial(): void {
    this.displaced = this.flush();
  }

  /** A CRI line: the logical line, null while partial chunks are joined, undefined when it is not CRI after all. */
  private fromCri(text: string, lineNo: number): CollectedLine | null | undefined {
    const cri = CRI.exec(text);
    if (!cri) return undefined;
    const time = parseRfc3339(cri[1]!, this.times);
    const stream = cri[2] as 'stdout' | 'stderr';
    const body = cri[4]!;
    if (cri[3] === 'P') {
      if (this.partial && this.partial.length + body.length > MAX_JOINED_PARTIAL) this.releasePartial();
      if (this.partial) {
        this.partial.parts.push(body);
        this.partial.length += body.length;
      } else this.partial = { time, stream, parts: [body], length: body.length, line: lineNo };
      return null;
    }
    if (this.partial) {
      const joined = this.partial;
      this.partial = null;
      joined.parts.push(body);
      return { time: joined.time, stream: joined.stream, content: joined.parts.join(''), line: joined.line };
    }
    return { time, stream, content: body, line: lineNo };
  }

  /** True while a CRI partial line waits for its final chunk. */
  hasPartial(): boolean {
    return this.partial !== null;
  }

  /** Flushes a dangling CRI partial line at end of input. */
  flush(): CollectedLine | null {
    const pending = this.partial;
    this.partial = null;
    return pending ? { time: pending.time, stream: pending.stream, content: pending.parts.join(''), line: pending.line } : null;
  }

  private withTailer(content: string, time: number | null, line: number): CollectedLine {
    return withTailer(content, time, line, this.times);
  }
}

function withTailer(content: string, time: number | null, line: number, times: TimestampMemo | null): CollectedLine {
  const first = content.charCodeAt(0);
  if (first === 91 /* [ */ && content.startsWith('[pod/')) {
    const prefixed = KUBECTL_PREFIX.exec(content);
    if (prefixed) return withTimestamp(content.slice(prefixed[0].length), time, line, times, { pod: prefixed[1]!, container: prefixed[2]! });
  }
  if (first === 91 /* [ */) {
    const second = content.charCodeAt(1);
    if (second >= 97 && second <= 122) {
      const bracketed = BRACKETED_TAILER.exec(content);
      if (bracketed) return withTimestamp(content.slice(bracketed[0].length), time, line, times, { pod: bracketed[1]!, container: bracketed[2]! });
    }
  }
  // Fast path: payloads that start like a log line need no tailer check.
  if (first === 91 /* [ */ || first === 123 /* { */ || first === 32) return { time, content, line };
  const tailer = TAILER.exec(content);
  if (!tailer) return { time, content, line };
  const rest = content.slice(tailer[0].length);
  // The regex fills the namespace slot first; the last token is always the container.
  const tokens = tailer.slice(1, 4).filter((t): t is string => t !== undefined);
  if (tokens.length === 3) return withTimestamp(rest, time, line, times, { namespace: tokens[0], pod: tokens[1], container: tokens[2] });
  if (tokens.length === 2) return withTimestamp(rest, time, line, times, { pod: tokens[0], container: tokens[1] });
  return withTimestamp(rest, time, line, times, { container: tokens[0] });
}

/** The payload after a tailer's prefix, which `--timestamps` follows with its timestamp. */
function withTimestamp(
  rest: string,
  time: number | null,
  line: number,
  times: TimestampMemo | null,
  origin: Pick<CollectedLine, 'namespace' | 'pod' | 'container'>,
): CollectedLine {
  if (time === null && COLLECTOR_TIMESTAMP.test(rest)) {
    const space = rest.indexOf(' ');
    return { time: parseRfc3339Until(rest, space, times), ...origin, content: rest.slice(space + 1), line };
  }
  return { time, ...origin, content: rest, line };
}

/**
 * The collector prefixes of one line read on their own, without the CRI partial-line state: for
 * a line that reached the parser behind something else (a chat quote, indentation), once that is
 * removed.
 */
export function peelPrefixes(text: string, line: number): CollectedLine {
  const first = text.charCodeAt(0);
  if (first >= 48 && first <= 57 && COLLECTOR_TIMESTAMP.test(text)) {
    const cri = CRI.exec(text);
    if (cri) return { time: parseRfc3339(cri[1]!), stream: cri[2] as 'stdout' | 'stderr', content: cri[4]!, line };
    const space = text.indexOf(' ');
    return withTailer(text.slice(space + 1), parseRfc3339Until(text, space, null), line, null);
  }
  return withTailer(text, null, line, null);
}

function parseDockerJson(text: string, times: TimestampMemo): Omit<CollectedLine, 'line'> | null {
  try {
    const doc = JSON.parse(text) as { log?: unknown; stream?: unknown; time?: unknown };
    if (typeof doc.log !== 'string') return null;
    const content = doc.log.endsWith('\n') ? doc.log.slice(0, -1) : doc.log;
    const time = typeof doc.time === 'string' ? parseRfc3339(doc.time, times) : null;
    const stream = doc.stream === 'stderr' ? 'stderr' : 'stdout';
    return { time, stream, content };
  } catch {
    return null;
  }
}
