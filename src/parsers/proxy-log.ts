// linkerd2-proxy diagnostic logs: the plain tracing layout, the JSON layout, the pre-2020 legacy
// layout, and logfmt lines from Go components that share the container. Grammar notes live in
// docs/parse-format.md; the field layout follows tracing-subscriber's Full and Json formatters.

import type { InputInfo, LogLevel, LogSpan, ProxyLogRecord } from '../core/types.js';
import { COLLECTOR_TIMESTAMP, CollectorPrefixReader, POWERS_OF_TEN, parseRfc3339, parseRfc3339Until, peelPrefixes, type CollectedLine } from './collector-prefix.js';
import { JsonRecordAssembler, boundedJson, isPasteNoise, stripPasteMarkers } from './pasted.js';
import type { LineParser, ParserFactory, ParserSink, ParserState } from './parser.js';
import { shareFields } from '../util/body-memo.js';
import { KubectlReader } from './kubectl.js';

type Parsed = Pick<ProxyLogRecord, 'format' | 'uptime' | 'level' | 'thread' | 'spans' | 'target' | 'message' | 'fields' | 'levelAbsent'> & {
  time?: number | null;
  /** From a tailer prefix found only once paste markers were removed. */
  pod?: string;
  container?: string;
};

const LEVELS = new Set<string>(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']);
const LEGACY_LEVELS: Record<string, LogLevel> = { 'ERR!': 'ERROR', WARN: 'WARN', INFO: 'INFO', DBUG: 'DEBUG', TRCE: 'TRACE' };
const LOGFMT_LEVELS: Record<string, LogLevel> = {
  trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', warning: 'WARN', error: 'ERROR', fatal: 'ERROR', panic: 'ERROR',
};

/** Terminals are at least this wide, so a shorter row is not part of a wrapped line. */
const MIN_WRAP_WIDTH = 80;
/** A wrapped line continues over at most this many further lines. */
const MAX_CONTINUATIONS = 8;

/** Uptime values can jitter slightly between threads; a larger step back is a restart. */
const RESTART_TOLERANCE_SECONDS = 1;

export const createProxyLogParser: ParserFactory = (input, sink, options) => new ProxyLogParser(input, sink, options.interest?.['proxy-log'] ?? null);

/** The release banner a proxy prints first at start-up; it marks a restart, so it is never skimmed. */
const RELEASE_BANNER = 'linkerd2_proxy: release ';

class ProxyLogParser implements LineParser {
  private readonly prefixes = new CollectorPrefixReader();
  private restart = 0;
  private lastUptime: number | null = null;
  private recordsSinceRestart = 0;
  /** Wall time minus uptime for the current proxy process, learned from any line that has both. */
  private bootTime: number | null = null;

  constructor(
    private readonly input: InputInfo,
    private readonly sink: ParserSink,
    /** Substrings one of which a line must hold for a rule to read it; null builds every record. */
    interest: readonly string[] | null = null,
  ) {
    // One scan of the line for all the rules' substrings, and for what a skimmed line must never
    // hold (a release banner marks a restart; ANSI codes need the full reader), instead of one
    // scan per substring.
    this.fullParse = interest === null ? null : new RegExp([...new Set([...interest, RELEASE_BANNER, '\x1b['])].map(escapeRegExp).join('|'));
    this.kubectl = new KubectlReader(input, (record) => sink.emit(record));
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
      time = parseRfc3339Until(text, space);
      if (time === null) return false;
    }
    if (text.charCodeAt(pos) !== 91 /* [ */) return false;
    const uptime = readUptime(text, pos + 1);
    if (uptime === null) return false;
    pos = skipSpaces(text, uptimeEnd + 2);
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
    this.trackRestart(parsed.uptime, parsed.target === 'linkerd2_proxy' && parsed.message.startsWith('release '));
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
      namespace: this.input.namespace,
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

  private trackRestart(uptime: number | null, isBanner: boolean): void {
    const wentBack = uptime !== null && this.lastUptime !== null && uptime + RESTART_TOLERANCE_SECONDS < this.lastUptime;
    if ((wentBack || isBanner) && this.recordsSinceRestart > 0) {
      this.restart++;
      this.recordsSinceRestart = 0;
      this.bootTime = null;
    }
    if (uptime !== null) this.lastUptime = uptime;
  }
}

/** Where the last readUptime() stopped (at `s]`); a module variable so the skim path allocates nothing. */
let uptimeEnd = 0;

/**
 * Reads `  123.456789` up to `s]` the way parseUptime does (same arithmetic, so the same double),
 * straight from the line.
 */
function readUptime(s: string, start: number): number | null {
  let pos = skipSpaces(s, start);
  let secs = 0;
  const secsStart = pos;
  for (let c = s.charCodeAt(pos); c >= 48 && c <= 57; c = s.charCodeAt(++pos)) secs = secs * 10 + (c - 48);
  if (pos === secsStart || pos - secsStart > 15 || s.charCodeAt(pos) !== 46 /* . */) return null;
  const fracStart = ++pos;
  let frac = 0;
  for (let c = s.charCodeAt(pos); c >= 48 && c <= 57; c = s.charCodeAt(++pos)) frac = frac * 10 + (c - 48);
  const places = pos - fracStart;
  if (places === 0 || places > 15 || s.charCodeAt(pos) !== 115 /* s */ || s.charCodeAt(pos + 1) !== 93 /* ] */) return null;
  uptimeEnd = pos;
  // A table, not 10 ** places: the exponentiation was the costliest step of reading an uptime.
  return places > 6 ? secs + frac / 1e9 : secs + frac / POWERS_OF_TEN[places]!;
}

/** Parses one payload line (collector prefix already removed). Returns null when it is not a log line. */
export function parseProxyLogPayload(content: string): Parsed | null {
  const first = content.charCodeAt(0);
  if (first === 91 /* [ */) return parsePlain(content);
  if (first === 123 /* { */) return parseJson(content);
  if (content.startsWith('time=') || content.startsWith('level=')) return parseLogfmt(content);
  return parseLevelFirst(content);
}

/**
 * A line that starts with its level: the legacy layout (`ERR! [  1.2s] proxy={…} target msg`,
 * with or without the uptime), or a tracing line whose uptime was stripped by the user or replaced
 * by a wall-clock timestamp (policy controller, WALL_CLOCK proxies: `<ts>  INFO target: msg`, the
 * level padded).
 */
function parseLevelFirst(content: string): Parsed | null {
  const pos = skipSpaces(content, 0);
  const legacy = LEGACY_LEVELS[content.slice(pos, pos + 4)];
  if (legacy !== undefined && content.charCodeAt(pos + 4) === 32) {
    const after = skipSpaces(content, pos + 5);
    if (content.charCodeAt(after) === 91 /* [ */) {
      const uptime = readUptime(content, after + 1);
      if (uptime !== null) return parseLegacyBody(content, skipSpaces(content, uptimeEnd + 2), legacy, uptime);
    }
    // ERR!, DBUG and TRCE only ever started legacy lines; WARN and INFO also start tracing lines.
    if (legacy !== 'WARN' && legacy !== 'INFO') return parseLegacyBody(content, after, legacy, null);
  }
  if (levelAt(content, pos) === null) return null;
  const tracing = parseAfterUptime(content, pos, null);
  if (tracing !== null || legacy === undefined) return tracing;
  return parseLegacyBody(content, skipSpaces(content, pos + 5), legacy, null);
}

/** `proxy={server=in listen=…} admin={bg=resolver} linkerd2_proxy::app::errors message`: contexts become spans. */
function parseLegacyBody(s: string, start: number, level: LogLevel, uptime: number | null): Parsed | null {
  const spans: LogSpan[] = [];
  let pos = start;
  while (true) {
    let nameEnd = pos;
    while (isIdent(s.charCodeAt(nameEnd)) || s.charCodeAt(nameEnd) === 46 /* . */) nameEnd++;
    if (nameEnd === pos || s.charCodeAt(nameEnd) !== 61 /* = */ || s.charCodeAt(nameEnd + 1) !== 123 /* { */) break;
    const close = matchingBrace(s, nameEnd + 1);
    if (close === -1) return null;
    spans.push({ name: s.slice(pos, nameEnd), fields: parseSpanFields(s.slice(nameEnd + 2, close)) });
    pos = skipSpaces(s, close + 1);
  }
  if (!isLowerIdentStart(s.charCodeAt(pos))) return null;
  const targetEnd = scanModulePath(s, pos);
  let messageStart: number;
  if (s.charCodeAt(targetEnd) === 58 /* : */ && s.charCodeAt(targetEnd + 1) === 32) messageStart = targetEnd + 2;
  else if (s.charCodeAt(targetEnd) === 32) messageStart = targetEnd + 1;
  else if (targetEnd === s.length) messageStart = targetEnd;
  else return null;
  return { format: 'legacy', uptime, level, thread: null, spans, target: s.slice(pos, targetEnd), message: s.slice(messageStart).trimEnd(), fields: {} };
}

const isLowerIdentStart = (c: number) => (c >= 97 && c <= 122) || c === 95;

/** `describe pod` shows a container's last words after `Message:`; they are often proxy lines. */
const DESCRIBE_MESSAGE = /^(?:Message|message):\s+/;
/** The 2018 Conduit layout: level letter, a tab, `file.rs:line]`, then `target: message`. */
const GLOG = /^([EWIDT])[\t ]+[\w./-]+\.rs:\d+\] /;
const GLOG_LEVELS: Record<string, LogLevel> = { E: 'ERROR', W: 'WARN', I: 'INFO', D: 'DEBUG', T: 'TRACE' };
/** An uptime that lost a bracket in the paste: `78.195241119s]  WARN`, `[  4.1s  WARN`. */
const LOOSE_UPTIME = /^(?:\[\s*(\d+)\.(\d+)s?\]?|(\d+)\.(\d+)s\])\s+(?=(?:TRACE|DEBUG|INFO|WARN|ERROR) )/;

/**
 * Lines the readers above reject, as people paste them: behind a chat quote or indentation, in
 * the 2018 Conduit layout, with a damaged uptime, as a JSON record cut off by the excerpt, or as a
 * bare fragment without level and uptime (read as INFO, marked `levelAbsent`: the level is not in
 * the text, and inventing a severity would turn a fragment into an incident). Only lines the fast
 * readers rejected get here.
 */
export function parsePastedProxyLine(content: string): Parsed | null {
  let text = stripPasteMarkers(content);
  const label = DESCRIBE_MESSAGE.exec(text);
  if (label) text = text.slice(label[0].length);
  let time: number | null = null;
  let pod: string | undefined;
  let container: string | undefined;
  if (text !== content) {
    const peeled = peelPrefixes(text, 0);
    time = peeled.time;
    pod = peeled.pod;
    container = peeled.container;
    text = peeled.content;
    const again = parseProxyLogPayload(text);
    if (again) return withOrigin(again, time, pod, container);
  }
  const parsed = parseGlog(text) ?? parseLooseUptime(text) ?? parseTruncatedJson(text) ?? parseFragment(text);
  return parsed ? withOrigin(parsed, time, pod, container) : null;
}

function withOrigin(parsed: Parsed, time: number | null, pod: string | undefined, container: string | undefined): Parsed {
  if (time === null && pod === undefined && container === undefined) return parsed;
  const out: Parsed = { ...parsed, time: parsed.time ?? time };
  if (pod !== undefined) out.pod = pod;
  if (container !== undefined) out.container = container;
  return out;
}

function parseGlog(text: string): Parsed | null {
  const m = GLOG.exec(text);
  if (!m) return null;
  const body = parseSpansTargetMessage(text, m[0].length);
  if (body) return { format: 'legacy', uptime: null, level: GLOG_LEVELS[m[1]!]!, thread: null, ...body };
  return parseLegacyBody(text, m[0].length, GLOG_LEVELS[m[1]!]!, null);
}

function parseLooseUptime(text: string): Parsed | null {
  const m = LOOSE_UPTIME.exec(text);
  if (!m) return null;
  const uptime = parseUptime(`${m[1] ?? m[3]}.${m[2] ?? m[4]}`);
  return parseAfterUptime(text, m[0].length, uptime);
}

/** A JSON record cut off mid-way (excerpts, log UIs): level, target and message read by key. */
function parseTruncatedJson(text: string): Parsed | null {
  if (!text.startsWith('{"') && !text.startsWith('{ "')) return null;
  const level = /"level"\s*:\s*"(\w+)"/.exec(text)?.[1]?.toUpperCase();
  const target = /"target"\s*:\s*"([^"\\]+)"/.exec(text)?.[1];
  if (level === undefined || !LEVELS.has(level) || target === undefined) return null;
  const message = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  const stamp = /"timestamp"\s*:\s*"([^"]*)"/.exec(text)?.[1];
  let uptime: number | null = null;
  let time: number | null = null;
  if (stamp?.startsWith('[')) uptime = parseUptime(stamp.slice(1, stamp.indexOf('s]')));
  else if (stamp) time = parseRfc3339(stamp);
  return { format: 'json', uptime, time, level: level as LogLevel, thread: null, spans: [], target, message: message === undefined ? '' : unescapeJson(message), fields: {} };
}

function unescapeJson(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/**
 * `spans: target: message` or `target: message` with nothing before it. The target must look like
 * a Rust module path (`::` in it, or spans before it, or a `linkerd` crate), so that `Reason: Error`
 * or `note: see above` are not taken for log lines.
 */
function parseFragment(text: string): Parsed | null {
  let pos = 0;
  let thread: number | null = null;
  if (text.startsWith('ThreadId(')) {
    const end = text.indexOf(')');
    if (end === -1) return null;
    thread = threadNumber(text, 9, end);
    pos = skipSpaces(text, end + 1);
  }
  if (!isLowerIdentStart(text.charCodeAt(pos))) return null;
  const body = parseSpansTargetMessage(text, pos);
  if (!body || !isLowerIdentStart(body.target.charCodeAt(0))) return null;
  if (body.spans.length === 0 && !body.target.includes('::') && !body.target.startsWith('linkerd')) return null;
  if (body.spans.some((span) => !isLowerIdentStart(span.name.charCodeAt(0)))) return null;
  return { format: 'plain', uptime: null, level: 'INFO', levelAbsent: true, thread, ...body };
}

function parsePlain(content: string): Parsed | null {
  // The usual `[  123.456789s]`, read in place; anything unusual takes the general path below.
  const quick = readUptime(content, 1);
  if (quick !== null) return parseAfterUptime(content, uptimeEnd + 2, quick);
  const close = content.indexOf('s]');
  if (close === -1) return null;
  const uptime = parseUptime(content.slice(1, close));
  if (uptime === null) return null;
  return parseAfterUptime(content, close + 2, uptime);
}

/** `[     0.002035s]`: micro-second fractions; proxies before v2.116 printed raw nanoseconds unpadded. */
function parseUptime(inner: string): number | null {
  const m = /^\s*(\d+)\.(\d+)$/.exec(inner);
  if (!m) return null;
  const secs = Number(m[1]);
  const frac = m[2]!;
  return frac.length > 6 ? secs + Number(frac) / 1e9 : secs + Number(frac) / 10 ** frac.length;
}

function parseAfterUptime(content: string, start: number, uptime: number | null): Parsed | null {
  let pos = skipSpaces(content, start);
  const level = levelAt(content, pos);
  if (level === null) return null;
  pos = skipSpaces(content, pos + level.length);
  let thread: number | null = null;
  if (content.startsWith('ThreadId(', pos)) {
    const end = content.indexOf(')', pos);
    if (end === -1) return null;
    thread = threadNumber(content, pos + 9, end);
    pos = skipSpaces(content, end + 1);
  }
  const body = parsedBody(content, pos);
  if (!body) return null;
  return { format: 'plain', uptime, level: level as LogLevel, thread, spans: body.spans, target: body.target, message: body.message, fields: body.fields };
}

/** The level each level's first letter stands for (they all differ). */
const LEVEL_BY_INITIAL = new Map<number, LogLevel>([...LEVELS].map((level) => [level.charCodeAt(0), level as LogLevel]));

/** The level spelled at `pos` and followed by a space, or null: the same test as slicing up to the next space and looking the word up, without the slice. */
function levelAt(s: string, pos: number): LogLevel | null {
  const level = LEVEL_BY_INITIAL.get(s.charCodeAt(pos));
  if (level === undefined || s.charCodeAt(pos + level.length) !== 32) return null;
  for (let i = 1; i < level.length; i++) if (s.charCodeAt(pos + i) !== level.charCodeAt(i)) return null;
  return level;
}

/** `ThreadId(01)`'s number, read in place; anything but plain digits reads as Number() would. */
function threadNumber(s: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return Number(s.slice(start, end));
    n = n * 10 + (c - 48);
  }
  return end > start && end - start <= 15 ? n : Number(s.slice(start, end));
}

type Body = Pick<Parsed, 'spans' | 'target' | 'message' | 'fields'>;

/**
 * Bodies (spans, target, message and fields: everything after the thread id) parsed recently.
 * A storm repeats the same few hundred bodies millions of times, one per reconnect loop, so
 * looking a body up costs a fraction of parsing it again. Two generations bound the memory:
 * when the current one is full it becomes the previous one, and entries still in use move up.
 * Cached bodies are frozen, since every record with that body shares them, and their fields carry
 * the slots perBody() remembers derivations in.
 */
const BODY_CACHE_ENTRIES = 4096;
const BODY_CACHE_MAX_LENGTH = 1024;
let currentBodies = new Map<string, Body | null>();
let previousBodies = new Map<string, Body | null>();

/**
 * Bodies that never repeat (an address bomb: every line a new endpoint) make the cache pure cost:
 * each entry outlives a young-generation collection, is promoted, and dies in the old generation
 * (the 2M-address stress case went from 5 s and 222 MB to 13 s and 468 MB). So the hit rate is
 * checked every BODY_CACHE_WINDOW lookups, and below a quarter the cache is bypassed for a while
 * before it is tried again. The window is short because each probe leaves its entries behind as
 * old-generation garbage: with 4096-lookup probes the same case still peaked at 400 MB, with 512
 * at 237 MB. The bypass starts short and doubles with every failed probe, up to 65,536 bodies:
 * a cold cache also fails its first probe (a storm's first 512 bodies are mostly new), and a
 * fixed 65,536 then sent the next 10 % of a 256 MiB storm range past the cache and past every
 * rule's per-body memo. A storm hits 99 % once warm.
 */
const BODY_CACHE_WINDOW = 512;
const BODY_CACHE_FIRST_BYPASS = 512;
const BODY_CACHE_LONGEST_BYPASS = 65_536;
let lookups = 0;
let hits = 0;
let bypassLeft = 0;
let nextBypass = BODY_CACHE_FIRST_BYPASS;

function parsedBody(content: string, pos: number): Body | null {
  if (bypassLeft > 0) {
    bypassLeft--;
    return parseSpansTargetMessage(content, pos);
  }
  if (content.length - pos > BODY_CACHE_MAX_LENGTH) return parseSpansTargetMessage(content, pos);
  if (++lookups === BODY_CACHE_WINDOW) {
    if (hits * 4 < BODY_CACHE_WINDOW) {
      bypassLeft = nextBypass;
      nextBypass = Math.min(nextBypass * 2, BODY_CACHE_LONGEST_BYPASS);
    } else {
      nextBypass = BODY_CACHE_FIRST_BYPASS;
    }
    lookups = 0;
    hits = 0;
  }
  const key = content.slice(pos);
  let body = currentBodies.get(key);
  if (body !== undefined) {
    hits++;
    return body;
  }
  body = previousBodies.get(key);
  if (body === undefined) body = freezeBody(parseSpansTargetMessage(content, pos));
  else hits++;
  if (currentBodies.size >= BODY_CACHE_ENTRIES) {
    previousBodies = currentBodies;
    currentBodies = new Map();
  }
  currentBodies.set(key, body);
  return body;
}

function freezeBody(body: Body | null): Body | null {
  if (body === null) return null;
  for (const span of body.spans) Object.freeze(span.fields);
  Object.freeze(body.spans);
  shareFields(body.fields);
  Object.freeze(body.fields);
  return Object.freeze(body);
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function skipSpaces(s: string, pos: number): number {
  while (s.charCodeAt(pos) === 32) pos++;
  return pos;
}

/**
 * `span{k=v}:span: target::path: message k=v …`. Spans are tokens `name` or `name{…}` joined by
 * single colons; the target is a module path. Scanning (rather than a lazy regex) keeps this linear
 * and stops `: ` inside error text from being mistaken for a span boundary.
 */
function parseSpansTargetMessage(s: string, start: number): Pick<Parsed, 'spans' | 'target' | 'message' | 'fields'> | null {
  const chain: { name: string; fields: string | null }[] = [];
  let pos = start;
  while (true) {
    const nameEnd = scanModulePath(s, pos);
    if (nameEnd === pos) return null;
    const name = s.slice(pos, nameEnd);
    pos = nameEnd;
    let fields: string | null = null;
    if (s.charCodeAt(pos) === 123 /* { */) {
      const close = matchingBrace(s, pos);
      if (close === -1) return null;
      fields = s.slice(pos + 1, close);
      pos = close + 1;
    }
    chain.push({ name, fields });
    if (s.charCodeAt(pos) === 58 /* : */ && s.charCodeAt(pos + 1) === 32) {
      pos += 2;
      break;
    }
    if (s.charCodeAt(pos) === 58) {
      pos += 1;
      continue;
    }
    return null;
  }
  // Is the next token a target (`module::path: `)? Then the chain was the span list.
  const targetEnd = scanModulePath(s, pos);
  if (targetEnd > pos && s.charCodeAt(targetEnd) === 58 && s.charCodeAt(targetEnd + 1) === 32) {
    const spans = chain.map((c): LogSpan => ({ name: c.name, fields: c.fields ? parseSpanFields(c.fields) : {} }));
    return { spans, target: s.slice(pos, targetEnd), ...splitMessage(s.slice(targetEnd + 2)) };
  }
  if (chain.length !== 1 || chain[0]!.fields !== null) return null;
  return { spans: [], target: chain[0]!.name, ...splitMessage(s.slice(pos)) };
}

const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdent = (c: number) => isIdentStart(c) || (c >= 48 && c <= 57) || c === 45; /* - */

function scanModulePath(s: string, pos: number): number {
  let i = pos;
  if (!isIdentStart(s.charCodeAt(i))) return pos;
  while (true) {
    while (isIdent(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === 58 && s.charCodeAt(i + 1) === 58 && isIdentStart(s.charCodeAt(i + 2))) {
      i += 2;
      continue;
    }
    return i;
  }
}

function matchingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}

/**
 * `k=v k2=v2`: values are Display text and may hold spaces, so keys mark the boundaries. A key
 * is `[A-Za-z_][\w.]*=` at the start or after a space (the grammar of the regex
 * `/(?:^| )([A-Za-z_][\w.]*)=/g`, scanned by hand: this runs for every span of every record).
 */
function parseSpanFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let key: string | null = null;
  let valueStart = 0;
  let boundary = nextFieldKey(text, 0);
  while (true) {
    if (key !== null) fields[key] = unquote(text.slice(valueStart, boundary === -1 ? text.length : boundary));
    if (boundary === -1) return fields;
    const keyStart = boundary === 0 && text.charCodeAt(0) !== 32 ? 0 : boundary + 1;
    key = text.slice(keyStart, fieldKeyEnd);
    valueStart = fieldKeyEnd + 1;
    boundary = nextFieldKey(text, valueStart);
  }
}

/** Where nextFieldKey's key ended (at its `=`). */
let fieldKeyEnd = 0;

/** Start of the next ` key=` (or of `key=` at the very start) at or after `from`, or -1. */
function nextFieldKey(s: string, from: number): number {
  if (from === 0 && keyAt(s, 0)) return 0;
  for (let space = s.indexOf(' ', from); space !== -1; space = s.indexOf(' ', space + 1)) if (keyAt(s, space + 1)) return space;
  return -1;
}

function keyAt(s: string, start: number): boolean {
  const c = s.charCodeAt(start);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  let i = start + 1;
  for (let d = s.charCodeAt(i); (d >= 65 && d <= 90) || (d >= 97 && d <= 122) || (d >= 48 && d <= 57) || d === 95 || d === 46; d = s.charCodeAt(++i));
  if (s.charCodeAt(i) !== 61 /* = */) return false;
  fieldKeyEnd = i;
  return true;
}

const MESSAGE_FIELD = / ([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)=/g;

/** `message key=value …`: `error.sources=[…]` is bracketed and may contain anything. */
function splitMessage(rest: string): { message: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  MESSAGE_FIELD.lastIndex = 0;
  const first = MESSAGE_FIELD.exec(rest);
  if (!first) return { message: rest, fields };
  const message = rest.slice(0, first.index);
  let key = first[1]!;
  let valueStart = first.index + first[0].length;
  while (true) {
    if (rest.charCodeAt(valueStart) === 91 /* [ */ && key.endsWith('.sources')) {
      const close = rest.indexOf(']', valueStart);
      const end = close === -1 ? rest.length : close + 1;
      fields[key] = rest.slice(valueStart, end);
      MESSAGE_FIELD.lastIndex = end;
    } else {
      MESSAGE_FIELD.lastIndex = valueStart;
    }
    const next = MESSAGE_FIELD.exec(rest);
    if (fields[key] === undefined) fields[key] = unquote(rest.slice(valueStart, next ? next.index : rest.length));
    if (!next) break;
    key = next[1]!;
    valueStart = next.index + next[0].length;
  }
  return { message, fields };
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

function parseJson(content: string): Parsed | null {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch {
    return null;
  }
  if (!doc || typeof doc !== 'object') return null;
  const d = doc as Record<string, unknown>;
  const level = typeof d.level === 'string' ? d.level.toUpperCase() : '';
  if (!LEVELS.has(level) || typeof d.target !== 'string') return null;
  const rawFields = d.fields && typeof d.fields === 'object' ? (d.fields as Record<string, unknown>) : {};
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawFields)) if (k !== 'message') fields[k] = stringify(v);
  const spans: LogSpan[] = Array.isArray(d.spans)
    ? d.spans.filter((s): s is Record<string, unknown> => !!s && typeof s === 'object').map((s) => {
        const spanFields: Record<string, string> = {};
        for (const [k, v] of Object.entries(s)) if (k !== 'name') spanFields[k] = stringify(v);
        return { name: String(s.name ?? ''), fields: spanFields };
      })
    : [];
  let uptime: number | null = null;
  let time: number | null = null;
  if (typeof d.timestamp === 'string') {
    // Before proxy v2.252 the JSON timestamp is the uptime string; from v2.252 it is RFC 3339.
    if (d.timestamp.startsWith('[')) uptime = parseUptime(d.timestamp.slice(1, d.timestamp.indexOf('s]')));
    else time = parseRfc3339(d.timestamp);
  }
  const threadMatch = typeof d.threadId === 'string' ? /(\d+)/.exec(d.threadId) : null;
  return {
    format: 'json',
    uptime,
    time,
    level: level as LogLevel,
    thread: threadMatch ? Number(threadMatch[1]) : null,
    spans,
    target: d.target,
    message: stringify(rawFields.message ?? ''),
    fields,
  };
}

/** Nested values are rendered to a bounded depth: a line nested thousands deep must not overflow the stack. */
function stringify(v: unknown): string {
  return typeof v === 'string' ? v : boundedJson(v);
}

const LOGFMT_PAIR = /([\w.-]+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g;

function parseLogfmt(content: string): Parsed | null {
  const pairs: Record<string, string> = {};
  LOGFMT_PAIR.lastIndex = 0;
  for (let m = LOGFMT_PAIR.exec(content); m; m = LOGFMT_PAIR.exec(content)) {
    pairs[m[1]!] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  const level = LOGFMT_LEVELS[(pairs.level ?? '').toLowerCase()];
  if (!level) return null;
  const { time: timeText, level: _level, msg, component, ...fields } = pairs;
  return {
    format: 'logfmt',
    uptime: null,
    time: timeText ? parseRfc3339(timeText) : null,
    level,
    thread: null,
    spans: [],
    target: component ?? '',
    message: msg ?? '',
    fields,
  };
}
