// linkerd2-proxy diagnostic logs: the plain tracing layout, the JSON layout, the pre-2020 legacy
// layout, and logfmt lines from Go components that share the container. Grammar notes live in
// docs/parse-format.md; the field layout follows tracing-subscriber's Full and Json formatters.

import type { InputInfo, LogLevel, ProxyLogRecord } from '../core/types.js';
import { skipSpaces } from './proxy-log-body.js';
import { parsePastedProxyLine } from './proxy-log-pasted.js';
import { levelAt, parseProxyLogPayload, readUptime, threadNumber, uptimeEnd } from './proxy-log-payload.js';
import { ALWAYS_BUILT, bodyTableFor, type BodyTable, type RememberedBody } from './proxy-log-templates.js';
import { parseJson } from './proxy-log-structured.js';
import { COLLECTOR_TIMESTAMP, CollectorPrefixReader, parseRfc3339Until, type CollectedLine } from './collector-prefix.js';
import { JsonRecordAssembler, isPasteNoise, stripPasteMarkers } from './pasted.js';
import type { LineParser, ParserFactory, ParserSink, ParserState } from './parser.js';
import { KubectlReader } from './kubectl.js';

/** Terminals are at least this wide, so a shorter row is not part of a wrapped line. */
const MIN_WRAP_WIDTH = 80;
/** A wrapped line continues over at most this many further lines. */
const MAX_CONTINUATIONS = 8;

/** Uptime values can jitter slightly between threads; a larger step back is a restart. */
const RESTART_TOLERANCE_SECONDS = 1;

// The sniffer reads single lines with the same readers the parser uses.
export { parsePastedProxyLine } from './proxy-log-pasted.js';
export { parseProxyLogPayload } from './proxy-log-payload.js';

export const createProxyLogParser: ParserFactory = (input, sink, options) => {
  const built = options.interest?.['proxy-log'];
  const counted = options.countedInterest?.['proxy-log'] ?? null;
  const table = built === undefined ? null : bodyTableFor(built, counted);
  return new ProxyLogParser(input, sink, table, counted === null ? 0 : Math.max(0, options.countedSamples ?? 0), options.countedUptimeEdges ?? []);
};

/** The release banner a proxy prints first at start-up; it marks a restart, so it is never skimmed. */
export const RELEASE_BANNER = ALWAYS_BUILT[0]!;

/**
 * A count spans at most one minute of wall time (one bucket of the per-minute timelines rules
 * draw), so what rules keep per minute is the same from counts as from lines. Lines repeat a few
 * times a minute per body in a storm (a reconnect every backoff, a balancer entering fail-fast),
 * so a count per second would rarely hold more than one line.
 */
const COUNT_MS = 60_000;

/** Bodies a parser counts at once; past it, every open count is handed on and the counts start again. */
const MAX_COUNTED_BODIES = 4096;

/** Lines of one body, source, level, restart and second, counted (see parsers/proxy-log-templates.ts). */
interface OpenCount {
  level: LogLevel;
  restart: number;
  stream: 'stdout' | 'stderr' | undefined;
  /** Wall-time minute (or, with no wall time, minus one minus the uptime minute), and how many of the rules' uptime edges the lines are past: a count never spans either. */
  minute: number;
  uptimeStage: number;
  line: number;
  raw: string;
  thread: number | null;
  lines: number;
  time: number | null;
  lastTime: number | null;
  uptime: number;
  lastUptime: number;
  samples: { line: number; raw: string }[];
}

/** One more line of an open count. */
function fold(open: OpenCount, lineNo: number, text: string, rawStart: number, time: number | null, uptime: number, samples: number): void {
  open.lines++;
  if (time !== null) {
    if (time < open.time!) open.time = time;
    if (time > open.lastTime!) open.lastTime = time;
  }
  if (uptime < open.uptime) open.uptime = uptime;
  if (uptime > open.lastUptime) open.lastUptime = uptime;
  if (open.samples.length < samples) open.samples.push({ line: lineNo, raw: text.slice(rawStart) });
}

class ProxyLogParser implements LineParser {
  private readonly prefixes = new CollectorPrefixReader();
  private restart = 0;
  private lastUptime: number | null = null;
  private recordsSinceRestart = 0;
  /** Wall time minus uptime for the current proxy process, learned from any line that has both. */
  private bootTime: number | null = null;
  /** The open count of each counted body of this input, in the order they opened. */
  private counted = new Map<RememberedBody, OpenCount>();
  /** This input's number among the run's inputs, for the marks counted bodies keep. */
  private readonly inputId: number;

  constructor(
    private readonly input: InputInfo,
    private readonly sink: ParserSink,
    /** What rules want of each body; null builds every record. */
    private readonly bodies: BodyTable | null,
    /** Further lines a count keeps as samples. */
    private readonly countedSamples: number,
    /** Uptimes no count spans (ascending). */
    private readonly uptimeEdges: readonly number[],
  ) {
    this.kubectl = new KubectlReader(input, (record) => sink.emit(record), undefined, false);
    this.inputId = bodies?.nextInputId() ?? 0;
  }

  /** Pasted `kubectl describe` / `get events` lines around the log tail (see parsers/kubectl.ts). */
  private readonly kubectl: KubectlReader;

  line(text: string, lineNo: number): void {
    this.previousLength = this.currentLength;
    this.currentLength = text.length;
    if (this.bodies !== null && !this.prefixes.hasPartial() && !this.json.active && this.skim(text, lineNo)) {
      this.continuable = true;
      return;
    }
    const collected = this.prefixes.feed(text, lineNo);
    if (this.prefixes.displaced !== null) this.handle(this.prefixes.takeDisplaced()!);
    if (collected) this.handle(collected);
  }

  end(): void {
    const pending = this.prefixes.flush();
    if (pending) this.handle(pending);
    for (const l of this.json.flush()) this.readLine({ time: null, content: l.text, line: l.line });
    this.emitHeld();
    this.closeCounts();
    this.kubectl.end();
  }

  saveState(): ParserState {
    return {
      restart: this.restart,
      lastUptime: this.lastUptime,
      // Only whether there were any matters (a banner right at the start is no restart).
      recordsSinceRestart: this.recordsSinceRestart > 0,
      bootTime: this.bootTime,
      // A range that ends inside a pretty-printed JSON record must be read again with the next one.
      partialLine: this.prefixes.hasPartial() || this.json.active,
    };
  }

  restoreState(state: ParserState): void {
    this.restart = Number(state.restart ?? 0);
    this.lastUptime = typeof state.lastUptime === 'number' ? state.lastUptime : null;
    this.recordsSinceRestart = state.recordsSinceRestart ? 1 : 0;
    this.bootTime = typeof state.bootTime === 'number' ? state.bootTime : null;
  }

  /**
   * A plain-format line that no rule reads one by one: keep what later lines depend on (uptime for
   * restart detection, the collector time for wall-time anchoring) and count it, without building
   * a record. Lines only rules judging counts read are counted per body, level, restart and second
   * (closeCount builds one record per count). Returns false, leaving the line to the full parser,
   * whenever it is anything else: another format, a CRI partial, ANSI codes, a banner, the first
   * line after a restart, a body some rule reads line by line, or a prefix this cheap check does
   * not know.
   */
  private skim(text: string, lineNo: number): boolean {
    const use = this.bodies!.useOf(text);
    if (use === 'built' || (use === 'counted' && !this.bodies!.counting())) return false;
    let pos = 0;
    let time: number | null = null;
    let stream: 'stdout' | 'stderr' | undefined;
    const first = text.charCodeAt(0);
    if (first >= 48 && first <= 57) {
      if (!COLLECTOR_TIMESTAMP.test(text)) return false;
      const space = text.indexOf(' ');
      pos = space + 1;
      if (text.startsWith('stdout ', pos) || text.startsWith('stderr ', pos)) {
        if (text.charCodeAt(pos + 7) !== 70 /* F */) return false;
        stream = text.charCodeAt(pos + 3) === 111 /* o */ ? 'stdout' : 'stderr';
        pos += 8;
        if (text.charCodeAt(pos) === 32) pos++;
      }
      time = parseRfc3339Until(text, space);
      if (time === null) return false;
    }
    if (text.charCodeAt(pos) !== 91 /* [ */) return false;
    const rawStart = pos;
    const uptime = readUptime(text, pos + 1);
    if (uptime === null) return false;
    pos = skipSpaces(text, uptimeEnd + 2);
    const level = levelAt(text, pos);
    if (level === null) return false;
    pos = skipSpaces(text, pos + level.length);
    let thread: number | null = null;
    if (text.startsWith('ThreadId(', pos)) {
      const close = text.indexOf(')', pos);
      if (close === -1) return false;
      thread = threadNumber(text, pos + 9, close);
      pos = skipSpaces(text, close + 1);
    }
    // The first line after a restart is always built: rules watch record.restart change.
    if (this.lastUptime !== null && uptime + RESTART_TOLERANCE_SECONDS < this.lastUptime && this.recordsSinceRestart > 0) return false;
    if (use === 'counted') {
      // A line the full reader would trim, or a body not remembered yet (seen once), is built.
      if (text.charCodeAt(text.length - 1) === 32) return false;
      const body = this.bodies!.remember(text, pos);
      const wallTime = time ?? (this.bootTime !== null ? this.bootTime + uptime * 1000 : null);
      const counted = body !== null && this.count(body, text, rawStart, lineNo, level, thread, stream, wallTime, uptime);
      this.bodies!.counted(counted);
      if (!counted) return false;
      this.trackRestart(uptime, false);
      if (time !== null) this.bootTime = time - uptime * 1000;
      this.recordsSinceRestart++;
      return true;
    }
    this.trackRestart(uptime, false);
    if (time !== null) this.bootTime = time - uptime * 1000;
    this.recordsSinceRestart++;
    this.sink.skipped?.(lineNo);
    return true;
  }

  /**
   * Counts the line, or returns false to have it built: the first line of a body in each minute
   * (and level, restart, stream, uptime stage) of an input is built, and only the lines after it
   * are counted, so a body that does not repeat in the minute costs what a built line costs, and
   * no count is kept for it.
   */
  private count(
    body: RememberedBody,
    text: string,
    rawStart: number,
    lineNo: number,
    level: LogLevel,
    thread: number | null,
    stream: 'stdout' | 'stderr' | undefined,
    time: number | null,
    uptime: number,
  ): boolean {
    const minute = time !== null ? Math.floor(time / COUNT_MS) : -1 - Math.floor((uptime * 1000) / COUNT_MS);
    // Which of the rules' uptime edges the line is past: lines of one count agree on every `uptime < edge`.
    let uptimeStage = 0;
    while (uptimeStage < this.uptimeEdges.length && uptime >= this.uptimeEdges[uptimeStage]!) uptimeStage++;
    const open = this.counted.get(body);
    if (
      open !== undefined &&
      open.minute === minute &&
      open.uptimeStage === uptimeStage &&
      open.level === level &&
      open.restart === this.restart &&
      open.stream === stream
    ) {
      fold(open, lineNo, text, rawStart, time, uptime, this.countedSamples);
      return true;
    }
    if (open !== undefined) {
      this.closeCount(body, open);
      this.counted.delete(body);
    }
    // The first line of the body in this input and minute (and level, restart, stream, stage) is
    // built; the body only remembers that it was. A count opens with the second.
    const mark = this.inputId * 8 + (level === 'INFO' ? 0 : level === 'WARN' ? 1 : level === 'ERROR' ? 2 : level === 'DEBUG' ? 3 : 4);
    if (body.mark !== mark || body.markMinute !== minute || body.markStage !== uptimeStage || body.markRestart !== this.restart || body.markStream !== stream) {
      body.mark = mark;
      body.markMinute = minute;
      body.markStage = uptimeStage;
      body.markRestart = this.restart;
      body.markStream = stream;
      return false;
    }
    if (this.counted.size >= MAX_COUNTED_BODIES) this.closeCounts();
    this.counted.set(body, {
      level,
      restart: this.restart,
      stream,
      minute,
      uptimeStage,
      line: lineNo,
      raw: text.slice(rawStart),
      thread,
      lines: 1,
      time,
      lastTime: time,
      uptime,
      lastUptime: uptime,
      samples: [],
    });
    return true;
  }

  /**
   * Hands on an open count as one record: the body parsed once for the run (what the full reader
   * makes of it), the rest as the full reader sets it for a plain line of this input.
   */
  private closeCount(body: RememberedBody, open: OpenCount): void {
    const parsed = body.parsed;
    const record: ProxyLogRecord = {
      kind: 'proxy-log',
      path: this.input.path,
      line: open.line,
      pod: this.input.pod,
      namespace: this.input.namespace,
      container: this.input.container,
      format: 'plain',
      time: open.time,
      uptime: open.uptime,
      restart: open.restart,
      level: open.level,
      thread: open.thread,
      spans: parsed.spans,
      target: parsed.target,
      message: parsed.message,
      fields: parsed.fields,
      raw: open.raw,
      repeats: open.lines,
      lastTime: open.lastTime,
      lastUptime: open.lastUptime,
      repeatSamples: open.samples,
    };
    if (open.stream !== undefined) record.stream = open.stream;
    this.sink.emit(record);
  }

  /** Hands on every open count (at the end of the input, or when too many bodies are counted at once). */
  private closeCounts(): void {
    for (const [body, open] of this.counted) this.closeCount(body, open);
    this.counted = new Map();
  }

  /** A multi-line JSON record being joined (pretty-printed records span many lines). */
  private readonly json = new JsonRecordAssembler();
  /**
   * The last record, held for one more line: a terminal wraps long lines, and the rest of a wrapped
   * line arrives as the next physical line. Emitted when the next line is anything else.
   */
  private held: { record: ProxyLogRecord; content: string; continuations: number } | null = null;
  /** Whether the last line was a record, which the current line may continue. */
  private continuable = false;
  /** Lengths of the previous and the current physical line. */
  private previousLength = 0;
  private currentLength = 0;

  /**
   * A copy from a terminal pads every row to the terminal's width, so the rows of a wrapped line
   * are as long as each other: that, not just failing to parse, marks a line as the rest of the
   * previous one (a panic message after a long line is not its continuation).
   */
  private continuesPrevious(): boolean {
    return this.continuable && this.currentLength >= MIN_WRAP_WIDTH && this.currentLength === this.previousLength;
  }

  private handle(collected: CollectedLine): void {
    const first = collected.content.charCodeAt(0);
    if (this.json.active || ((first === 123 /* { */ || first === 32) && JsonRecordAssembler.opens(collected.content))) {
      const assembled = this.json.feed(collected.content, collected.line);
      if (assembled.done === false) return;
      // Balanced brackets that are not a log record (or too long to be one) are read line by line.
      if (assembled.done === true && parseJson(assembled.text)) return this.readLine({ ...collected, content: assembled.text, line: assembled.line });
      for (const l of assembled.lines) this.readLine({ ...collected, content: l.text, line: l.line });
      return;
    }
    this.readLine(collected);
  }

  private readLine(collected: CollectedLine): void {
    let content = collected.content;
    // Pasted lines often keep the terminal's padding; the proxy itself never ends a line in spaces.
    if (content.charCodeAt(content.length - 1) === 32) content = content.trimEnd();
    if (content.trim() === '') return;
    const parsed = parseProxyLogPayload(content) ?? parsePastedProxyLine(content);
    if (!parsed) {
      const continues = this.continuesPrevious();
      this.continuable = false;
      if (isPasteNoise(content)) return;
      if (continues && this.continueHeld(content)) return;
      if (continues && this.held === null) return; // the rest of a wrapped line no rule reads
      this.unrecognised(collected);
      return;
    }
    this.emitHeld();
    this.continuable = true;
    const restartStart = this.trackRestart(parsed.uptime, parsed.target === 'linkerd2_proxy' && parsed.message.startsWith('release '));
    let time = collected.time ?? parsed.time ?? null;
    if (parsed.uptime !== null) {
      if (time !== null) this.bootTime = time - parsed.uptime * 1000;
      else if (this.bootTime !== null) time = this.bootTime + parsed.uptime * 1000;
    }
    const record: ProxyLogRecord = {
      kind: 'proxy-log',
      path: this.input.path,
      line: collected.line,
      pod: collected.pod ?? parsed.pod ?? this.input.pod,
      namespace: collected.namespace ?? this.input.namespace,
      container: collected.container ?? parsed.container ?? this.input.container,
      format: parsed.format,
      time,
      uptime: parsed.uptime,
      restart: this.restart,
      level: parsed.level,
      thread: parsed.thread,
      spans: parsed.spans,
      target: parsed.target,
      message: parsed.message,
      fields: parsed.fields,
      raw: content,
    };
    if (collected.stream) record.stream = collected.stream;
    if (parsed.levelAbsent) record.levelAbsent = true;
    if (restartStart) record.restartStart = true;
    this.recordsSinceRestart++;
    this.held = { record, content: collected.content, continuations: 0 };
  }

  /** A line no reader took. Other readers of pasted text (kubectl describe…) can be tried here first. */
  private unrecognised(collected: CollectedLine): void {
    if (this.kubectl.line(collected.content, collected.line)) return;
    this.sink.unparsed(collected.line, 'not a proxy log line');
  }

  private emitHeld(): void {
    if (this.held === null) return;
    this.sink.emit(this.held.record);
    this.held = null;
  }

  /** Appends the rest of a terminal-wrapped line to the held record, when the joined line still parses. */
  private continueHeld(rest: string): boolean {
    const held = this.held;
    if (held === null || held.continuations >= MAX_CONTINUATIONS || rest.charCodeAt(0) === 91 || rest.charCodeAt(0) === 123) return false;
    // A wrap can fall on a space; the terminal keeps it at either end of the break.
    const content = held.content + (rest.charCodeAt(0) === 32 ? ' ' + rest.trimStart() : stripPasteMarkers(rest));
    const parsed = parseProxyLogPayload(content) ?? parsePastedProxyLine(content);
    if (!parsed) return false;
    held.record = { ...held.record, spans: parsed.spans, target: parsed.target, message: parsed.message, fields: parsed.fields, raw: content.trimEnd() };
    held.content = content;
    held.continuations++;
    this.continuable = true;
    return true;
  }

  /** Notes the line's uptime; true when the line starts a new run of the proxy. */
  private trackRestart(uptime: number | null, isBanner: boolean): boolean {
    const wentBack = uptime !== null && this.lastUptime !== null && uptime + RESTART_TOLERANCE_SECONDS < this.lastUptime;
    const restarted = (wentBack || isBanner) && this.recordsSinceRestart > 0;
    if (restarted) {
      this.restart++;
      this.recordsSinceRestart = 0;
      this.bootTime = null;
    }
    if (uptime !== null) this.lastUptime = uptime;
    return restarted;
  }
}
