// linkerd2-proxy diagnostic logs: the plain tracing layout, the JSON layout, the pre-2020 legacy
// layout, and logfmt lines from Go components that share the container. Grammar notes live in
// docs/parse-format.md; the field layout follows tracing-subscriber's Full and Json formatters.

import type { InputInfo, ProxyLogRecord } from '../core/types.js';
import { skipSpaces } from './proxy-log-body.js';
import { parsePastedProxyLine } from './proxy-log-pasted.js';
import { levelAt, parseProxyLogPayload, readUptime, uptimeEnd } from './proxy-log-payload.js';
import { ParseContext } from './context.js';
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

export const createProxyLogParser: ParserFactory = (input, sink, options) =>
  new ProxyLogParser(input, sink, options.interest?.['proxy-log'] ?? null, options.context ?? new ParseContext());

/** The release banner a proxy prints first at start-up; it marks a restart, so it is never skimmed. */
export const RELEASE_BANNER = 'linkerd2_proxy: release ';

class ProxyLogParser implements LineParser {
  private readonly prefixes: CollectorPrefixReader;
  private restart = 0;
  private lastUptime: number | null = null;
  private recordsSinceRestart = 0;
  /** Wall time minus uptime for the current proxy process, learned from any line that has both. */
  private bootTime: number | null = null;

  constructor(
    private readonly input: InputInfo,
    private readonly sink: ParserSink,
    /** Substrings one of which a line must hold for a rule to read it; null builds every record. */
    interest: readonly string[] | null,
    /** The run's caches: bodies, timestamps and this regex are shared by every parser of the run. */
    private readonly context: ParseContext,
  ) {
    // One scan of the line for all the rules' substrings, and for what a skimmed line must never
    // hold (a release banner marks a restart; ANSI codes need the full reader), instead of one
    // scan per substring.
    this.fullParse = interest === null ? null : context.literalRegexFor(interest, () => [...new Set([...interest, RELEASE_BANNER, '\x1b['])]);
    this.prefixes = new CollectorPrefixReader(context.times);
    this.kubectl = new KubectlReader(input, (record) => sink.emit(record), undefined, false);
  }

  /** Pasted `kubectl describe` / `get events` lines around the log tail (see parsers/kubectl.ts). */
  private readonly kubectl: KubectlReader;

  /** Lines matching this are parsed in full; null parses every line. */
  private readonly fullParse: RegExp | null;

  line(text: string, lineNo: number): void {
    this.previousLength = this.currentLength;
    this.currentLength = text.length;
    if (this.fullParse !== null && !this.prefixes.hasPartial() && !this.json.active && this.skim(text, lineNo)) {
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
   * A plain-format line that no rule reads: keep what later lines depend on (uptime for restart
   * detection, the collector time for wall-time anchoring) and count it, without building a
   * record. Returns false, leaving the line to the full parser, whenever it is anything else:
   * another format, a CRI partial, ANSI codes, a banner, the first line after a restart, or a
   * prefix this cheap check does not know.
   */
  private skim(text: string, lineNo: number): boolean {
    if (this.fullParse!.test(text)) return false;
    let pos = 0;
    let time: number | null = null;
    const first = text.charCodeAt(0);
    if (first >= 48 && first <= 57) {
      if (!COLLECTOR_TIMESTAMP.test(text)) return false;
      const space = text.indexOf(' ');
      pos = space + 1;
      if (text.startsWith('stdout ', pos) || text.startsWith('stderr ', pos)) {
        if (text.charCodeAt(pos + 7) !== 70 /* F */) return false;
        pos += 8;
        if (text.charCodeAt(pos) === 32) pos++;
      }
      time = parseRfc3339Until(text, space, this.context.times);
      if (time === null) return false;
    }
    if (text.charCodeAt(pos) !== 91 /* [ */) return false;
    const uptime = readUptime(text, pos + 1);
    if (uptime === null) return false;
    pos = skipSpaces(text, uptimeEnd(text, pos + 1));
    if (levelAt(text, pos) === null) return false;
    // The first line after a restart is always built: rules watch record.restart change.
    if (this.lastUptime !== null && uptime + RESTART_TOLERANCE_SECONDS < this.lastUptime && this.recordsSinceRestart > 0) return false;
    this.trackRestart(uptime, false);
    if (time !== null) this.bootTime = time - uptime * 1000;
    this.recordsSinceRestart++;
    this.sink.skipped?.(lineNo);
    return true;
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
      if (assembled.done === true && parseJson(assembled.text, this.context))
        return this.readLine({ ...collected, content: assembled.text, line: assembled.line });
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
    const parsed = parseProxyLogPayload(content, this.context) ?? parsePastedProxyLine(content, this.context);
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
    const parsed = parseProxyLogPayload(content, this.context) ?? parsePastedProxyLine(content, this.context);
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
