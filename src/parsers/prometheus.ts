// Prometheus text exposition (0.0.4), OpenMetrics 1.0, the hybrid body of linkerd2-proxy 2.15+
// (legacy families, then a prometheus-client section ending in `# EOF`), and the concatenated
// per-pod dumps of `linkerd diagnostics proxy-metrics` (each pod framed by `#`, `# POD name (i of N)`,
// `#`; `# EOF` closes a pod's section, not the input; `# ERROR…` stands for a pod that was not
// scraped). One sample line becomes one metric-sample record; nothing is merged, so duplicate
// series stay visible (and are flagged).
//
// Lenient mode (the default, used by analyze) reads what real scrapers and the linkerd CLI accept.
// Strict mode additionally reports, through sink.unparsed, everything the OpenMetrics 1.0 grammar
// rejects; the records that can still be read are emitted either way.

import type { InputInfo, MetricSampleRecord, MetricType } from '../core/types.js';
import type { LineParser, ParserFactory, ParserSink } from './parser.js';

export const createPrometheusParser: ParserFactory = (input, sink, options) => new PrometheusParser(input, sink, options.strict === true);

const POD_HEADER = /^# POD (.+) \((\d+) of (\d+)\)\s*$/;
const SCRAPE_ERROR = /^# ERROR:? ?(.*)$/;
const LEGACY_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/**
 * The lenient reader tolerates names outside the OpenMetrics character set, but no exposition
 * writer puts a control character in a name: such a line is binary garbage (or another format
 * salted with it) and must be reported unparsed, not turned into a sample.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;
/** OpenMetrics `realnumber` / `number`: decimal only (no hex, no `_`), inf/infinity/nan in any case. */
const OM_NUMBER = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])$/;
const OM_REAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const OM_TYPES = new Set<string>(['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown']);
const TEXT_TYPES = new Set<string>([...OM_TYPES, 'untyped']);
/** Exemplar label sets longer than this (names and values, in code points) are invalid OpenMetrics. */
const EXEMPLAR_MAX_CODE_POINTS = 128;
/** Series hashes remembered per section for duplicate detection; beyond this duplicates go unflagged. */
export const DUPLICATE_TRACKING_CAP = 500_000;

/** Sample-name suffixes each family type owns, as OpenMetrics names them. */
const TYPE_SUFFIXES: Record<string, readonly string[]> = {
  counter: ['_total', '_created'],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  summary: ['', '_count', '_sum', '_created'],
  info: ['_info'],
  stateset: [''],
  gauge: [''],
  unknown: [''],
  untyped: [''],
};
const RESOLVE_SUFFIXES = ['_total', '_created', '_bucket', '_count', '_sum', '_gcount', '_gsum', '_info'];

interface FamilyMeta {
  type?: string;
  help?: boolean;
  unit?: string;
}

export interface LexedSample {
  name: string;
  labels: Record<string, string>;
  /** Label names in the order written, for duplicate and strictness checks. */
  labelNames: string[];
  /** The text that identifies the series (name and label block as written). */
  seriesText: string;
  valueText: string;
  value: number;
  timestampText: string | null;
  exemplar: { labels: Record<string, string>; value: number; timestamp: number | null; codePoints: number } | null;
  /** Grammar problems a lenient reader tolerates; reported only in strict mode. */
  violations: string[];
  /** Set when the next line may share this one's labels up to the last (see SamplePrefix). */
  reusable?: SamplePrefix;
}

/**
 * What a sample line shares with the next one when only its last label changes: histogram
 * buckets repeat the whole label set and differ in `le`, which comes last. `prefix` is the line up
 * to the start of its last label (`name{a="1",b="2",`), read without any grammar violation.
 */
export interface SamplePrefix {
  prefix: string;
  name: string;
  /** All the labels of the line the prefix was taken from; the last one is overwritten. */
  labels: Record<string, string>;
  labelNames: string[];
  lastName: string;
}

/**
 * Parses one sample line; returns a reason string when even a lenient reader cannot read it.
 * With `previous` (the prefix of the line before), a line that repeats that prefix and differs
 * only in its last label's value is read from there on.
 */
export function lexSample(text: string, previous: SamplePrefix | null = null): LexedSample | string {
  // Not startsWith: V8 compares a long prefix there char by char, ~15x slower than this slice
  // comparison (measured on 447-character bucket prefixes: 1.3 us against 70 ns).
  if (previous !== null && text.slice(0, previous.prefix.length) === previous.prefix) {
    const reused = lexAfterPrefix(text, previous);
    if (reused !== null) return reused;
  }
  const violations: string[] = [];
  let pos = 0;
  let name = '';
  const labels: Record<string, string> = {};
  const labelNames: string[] = [];
  let reusable: SamplePrefix | undefined;
  if (text.charCodeAt(0) !== 123 /* { */) {
    while (pos < text.length && !isSpace(text.charCodeAt(pos)) && text.charCodeAt(pos) !== 123) pos++;
    name = text.slice(0, pos);
    if (!LEGACY_NAME.test(name)) {
      if (name === '' || /["=,}]/.test(name) || CONTROL_CHARACTER.test(name)) return 'invalid metric name';
      violations.push(`metric name "${name}" is outside the OpenMetrics character set`);
    }
  }
  let seriesEnd = pos;
  if (text.charCodeAt(pos) === 123) {
    const block = lexLabelBlock(text, pos, labels, labelNames, violations, name === '');
    if (typeof block === 'string') return block;
    if (name === '') {
      if (block.quotedName === null) return 'missing metric name';
      name = block.quotedName;
      violations.push('quoted metric names are not OpenMetrics 1.0');
    }
    pos = block.end;
    seriesEnd = pos;
    if (violations.length === 0 && block.lastItemStart > 0) {
      reusable = { prefix: text.slice(0, block.lastItemStart), name, labels, labelNames, lastName: labelNames[labelNames.length - 1]! };
    }
  }
  const sample = lexValueAndRest(text, pos, seriesEnd, name, labels, labelNames, violations);
  if (typeof sample !== 'string' && reusable) sample.reusable = reusable;
  return sample;
}

/** The fast path of lexSample: the line repeats `previous.prefix`, then `lastName="…"}`. Null when it does not. */
function lexAfterPrefix(text: string, previous: SamplePrefix): LexedSample | null {
  let pos = previous.prefix.length;
  const lastName = previous.lastName;
  if (!text.startsWith(lastName, pos) || text.charCodeAt(pos + lastName.length) !== 61 /* = */ || text.charCodeAt(pos + lastName.length + 1) !== 34) return null;
  const value = readQuoted(text, pos + lastName.length + 1);
  if (typeof value === 'string') return null;
  pos = value.end;
  if (text.charCodeAt(pos) !== 125 /* } */) return null;
  const labels = { ...previous.labels };
  labels[lastName] = value.value;
  const violations: string[] = [];
  const sample = lexValueAndRest(text, pos + 1, pos + 1, previous.name, labels, previous.labelNames, violations);
  if (typeof sample === 'string') return null;
  sample.reusable = { prefix: previous.prefix, name: previous.name, labels, labelNames: previous.labelNames, lastName };
  return sample;
}

/** Value, timestamp and exemplar after the series (`pos` is just past the name or label set). */
function lexValueAndRest(
  text: string,
  pos: number,
  seriesEnd: number,
  name: string,
  labels: Record<string, string>,
  labelNames: string[],
  violations: string[],
): LexedSample | string {
  if (!isSpace(text.charCodeAt(pos))) return pos >= text.length ? 'missing value' : 'expected a space before the value';
  if (text.charCodeAt(pos) !== 32 || isSpace(text.charCodeAt(pos + 1))) violations.push('tokens must be separated by exactly one space');
  while (isSpace(text.charCodeAt(pos))) pos++;
  const valueStart = pos;
  while (pos < text.length && !isSpace(text.charCodeAt(pos))) pos++;
  const valueText = text.slice(valueStart, pos);
  if (valueText === '') return 'missing value';
  const value = parseNumber(valueText);
  if (value === null) return `invalid value "${valueText}"`;
  if (!OM_NUMBER.test(valueText)) violations.push(`value "${valueText}" is not an OpenMetrics number`);
  let timestampText: string | null = null;
  let exemplar: LexedSample['exemplar'] = null;
  pos = skipSeparator(text, pos, violations);
  if (pos < text.length && text.charCodeAt(pos) !== 35 /* # */) {
    const tsStart = pos;
    while (pos < text.length && !isSpace(text.charCodeAt(pos))) pos++;
    timestampText = text.slice(tsStart, pos);
    if (parseNumber(timestampText) === null) return `invalid timestamp "${timestampText}"`;
    if (!OM_REAL.test(timestampText)) violations.push(`timestamp "${timestampText}" is not an OpenMetrics real number`);
    pos = skipSeparator(text, pos, violations);
  }
  if (pos < text.length) {
    if (text.charCodeAt(pos) !== 35) return 'unexpected text after the sample';
    const lexed = lexExemplar(text, pos, violations);
    if (typeof lexed === 'string') return lexed;
    exemplar = lexed;
  }
  return { name, labels, labelNames, seriesText: text.slice(0, seriesEnd), valueText, value, timestampText, exemplar, violations };
}

function skipSeparator(text: string, pos: number, violations: string[]): number {
  if (pos >= text.length) return pos;
  let end = pos;
  while (isSpace(text.charCodeAt(end))) end++;
  if (end - pos !== 1 || text.charCodeAt(pos) !== 32) violations.push('tokens must be separated by exactly one space');
  if (end === text.length) violations.push('trailing whitespace');
  return end;
}

function lexExemplar(text: string, pos: number, violations: string[]): NonNullable<LexedSample['exemplar']> | string {
  // `# {labels} value [timestamp]`
  if (text.charCodeAt(pos - 1) !== 32) violations.push('exemplar must follow the sample after one space');
  pos++;
  if (text.charCodeAt(pos) !== 32) violations.push('exemplar marker must be "# "');
  while (isSpace(text.charCodeAt(pos))) pos++;
  if (text.charCodeAt(pos) !== 123) {
    violations.push('exemplar without a label set');
    return { labels: {}, value: NaN, timestamp: null, codePoints: 0 };
  }
  const labels: Record<string, string> = {};
  const names: string[] = [];
  const block = lexLabelBlock(text, pos, labels, names, violations, false);
  if (typeof block === 'string') return `exemplar: ${block}`;
  pos = block.end;
  let codePoints = 0;
  for (const [k, v] of Object.entries(labels)) codePoints += [...k].length + [...v].length;
  const rest = text.slice(pos);
  const m = /^( +)(\S+)(?:( +)(\S+))?(\s*)$/.exec(rest);
  if (!m) {
    violations.push('exemplar needs a value');
    return { labels, value: NaN, timestamp: null, codePoints };
  }
  if (m[1] !== ' ' || (m[3] !== undefined && m[3] !== ' ') || m[5] !== '') violations.push('exemplar tokens must be separated by exactly one space');
  const value = parseNumber(m[2]!);
  if (value === null || !OM_NUMBER.test(m[2]!)) violations.push(`exemplar value "${m[2]}" is not a number`);
  let timestamp: number | null = null;
  if (m[4] !== undefined) {
    timestamp = parseNumber(m[4]);
    if (timestamp === null || !OM_REAL.test(m[4])) violations.push(`exemplar timestamp "${m[4]}" is not a real number`);
  }
  return { labels, value: value ?? NaN, timestamp, codePoints };
}

/**
 * Reads `{name="value",…}` from `start`. Values are unescaped (`\\`, `\"`, `\n`); other escapes stay
 * as written, because linkerd2-proxy writes label values without escaping. When `allowName` is
 * set, a leading quoted string not followed by `=` is the metric name (`{"my.metric",a="b"}`).
 */
/** `=`, `,`, `}` or `"` end an unquoted label name. */
function endsLabelName(c: number): boolean {
  return c === 61 || c === 44 || c === 125 || c === 34;
}

/** Label names repeat on every sample of a dump, so their checks are remembered (bounded). */
const knownLabelNames = new Map<string, 'ok' | 'nonstandard' | 'control'>();
const MAX_KNOWN_LABEL_NAMES = 4096;

function labelNameValidity(name: string): 'ok' | 'nonstandard' | 'control' {
  let validity = knownLabelNames.get(name);
  if (validity === undefined) {
    validity = CONTROL_CHARACTER.test(name) ? 'control' : LABEL_NAME.test(name) ? 'ok' : 'nonstandard';
    if (knownLabelNames.size < MAX_KNOWN_LABEL_NAMES) knownLabelNames.set(name, validity);
  }
  return validity;
}

function lexLabelBlock(
  text: string,
  start: number,
  labels: Record<string, string>,
  names: string[],
  violations: string[],
  allowName: boolean,
): { end: number; quotedName: string | null; lastItemStart: number } | string {
  let pos = start + 1;
  let quotedName: string | null = null;
  let expectItem = true;
  let afterComma = false;
  /** Where the last label began, when it followed a comma (0 for the first label). */
  let lastItemStart = 0;
  let itemStart = 0;
  while (true) {
    const spaceStart = pos;
    while (isSpace(text.charCodeAt(pos))) pos++;
    if (pos > spaceStart) violations.push('whitespace inside the label set');
    if (pos >= text.length) return 'unterminated label set';
    const c = text.charCodeAt(pos);
    if (c === 125 /* } */) {
      if (afterComma) violations.push('trailing comma in the label set');
      return { end: pos + 1, quotedName, lastItemStart };
    }
    if (!expectItem) {
      if (c !== 44 /* , */) return 'expected "," or "}" between labels';
      pos++;
      if (afterComma) return 'empty label between commas';
      expectItem = true;
      afterComma = true;
      itemStart = pos;
      continue;
    }
    let labelName: string;
    if (c === 34 /* " */) {
      const quoted = readQuoted(text, pos);
      if (typeof quoted === 'string') return quoted;
      labelName = quoted.value;
      pos = quoted.end;
      let p = pos;
      while (isSpace(text.charCodeAt(p))) p++;
      if (text.charCodeAt(p) !== 61 /* = */) {
        if (!allowName || quotedName !== null || names.length > 0) return 'quoted string without "="';
        quotedName = labelName;
        expectItem = false;
        afterComma = false;
        continue;
      }
      violations.push('quoted label names are not OpenMetrics 1.0');
    } else {
      const nameStart = pos;
      while (pos < text.length && !isSpace(text.charCodeAt(pos)) && !endsLabelName(text.charCodeAt(pos))) pos++;
      labelName = text.slice(nameStart, pos);
      if (labelName === '') return 'missing label name';
      const validity = labelNameValidity(labelName);
      if (validity === 'control') return 'invalid label name';
      if (validity === 'nonstandard') violations.push(`label name "${labelName}" is invalid`);
    }
    const eqStart = pos;
    while (isSpace(text.charCodeAt(pos))) pos++;
    if (text.charCodeAt(pos) !== 61) return `label "${labelName}" has no "="`;
    pos++;
    while (isSpace(text.charCodeAt(pos))) pos++;
    if (pos - eqStart > 1) violations.push('whitespace around "="');
    if (text.charCodeAt(pos) !== 34) return `label "${labelName}" value is not quoted`;
    const value = readQuoted(text, pos);
    if (typeof value === 'string') return value;
    pos = value.end;
    if (Object.prototype.hasOwnProperty.call(labels, labelName)) violations.push(`duplicate label "${labelName}"`);
    labels[labelName] = value.value;
    names.push(labelName);
    lastItemStart = itemStart;
    expectItem = false;
    afterComma = false;
  }
}

function readQuoted(text: string, start: number): { value: string; end: number } | string {
  let pos = start + 1;
  let out = '';
  let chunkStart = pos;
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 34) return { value: out + text.slice(chunkStart, pos), end: pos + 1 };
    if (c === 92 /* \ */) {
      const next = text[pos + 1];
      if (next === '\\' || next === '"' || next === 'n') {
        out += text.slice(chunkStart, pos) + (next === 'n' ? '\n' : next);
        pos += 2;
        chunkStart = pos;
        continue;
      }
    }
    pos++;
  }
  return 'unterminated quoted string';
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}

/** Go ParseFloat-compatible enough for exposition values: decimals, exponents, ±Inf, NaN. */
export function parseNumber(text: string): number | null {
  if (OM_REAL.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (lower === 'nan' || lower === '+nan' || lower === '-nan') return NaN;
  if (lower === '+inf' || lower === 'inf' || lower === '+infinity' || lower === 'infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  return null;
}

/**
 * Remembers series by a 64-bit hash (two 32-bit FNV-style hashes) in an open-addressing table of
 * typed arrays: 8 bytes per slot, so tracking the cap of 500,000 series costs at most 8 MiB.
 */
interface HashState {
  a: number;
  b: number;
}

const INITIAL_HASH: HashState = { a: 0x811c9dc5, b: 0x01000193 };

/** The hash state after the first `end` characters of `text`, to resume SeriesSet.add from. */
function prefixState(text: string, end: number): HashState {
  let a = INITIAL_HASH.a;
  let b = INITIAL_HASH.b;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return { a, b };
}

class SeriesSet {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  size = 0;

  /**
   * Adds the series `text`; returns false when it was already there. Beyond the cap nothing is
   * added. `from` skips a prefix whose hash state is already known (see prefixState): bucket
   * lines of one histogram share all but their last label.
   */
  add(text: string, from = 0, state: HashState = INITIAL_HASH): boolean {
    let a = state.a;
    let b = state.b;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    b = Math.imul(b ^ text.length, 0x5bd1e995);
    const hi = a >>> 0;
    const lo = (b ^ (b >>> 15)) >>> 0 || 1;
    const mask = this.hi.length - 1;
    let slot = hi & mask;
    while (this.lo[slot] !== 0) {
      if (this.hi[slot] === hi && this.lo[slot] === lo) return false;
      slot = (slot + 1) & mask;
    }
    if (this.size >= DUPLICATE_TRACKING_CAP) return true;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    if (++this.size * 2 > this.hi.length) this.grow();
    return true;
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    this.hi = new Uint32Array(oldHi.length * 2);
    this.lo = new Uint32Array(oldLo.length * 2);
    const mask = this.hi.length - 1;
    for (let i = 0; i < oldHi.length; i++) {
      if (oldLo[i] === 0) continue;
      let slot = oldHi[i]! & mask;
      while (this.lo[slot] !== 0) slot = (slot + 1) & mask;
      this.hi[slot] = oldHi[i]!;
      this.lo[slot] = oldLo[i]!;
    }
  }
}

interface Section {
  name: string | null;
  index: number | null;
  of: number | null;
}

export class PrometheusParser implements LineParser {
  private section: Section = { name: null, index: null, of: null };
  private meta = new Map<string, FamilyMeta>();
  private resolved = new Map<string, { family: string; type: MetricType }>();
  private seen = new SeriesSet();
  /** The previous sample line's labels up to its last, which the next bucket line usually repeats. */
  private previousSample: SamplePrefix | null = null;
  /** The shared prefix last hashed, and the hash state after it. */
  private hashedPrefix: string | null = null;
  private hashedPrefixState: HashState = INITIAL_HASH;
  private eofLine: number | null = null;
  private loneHashLine: number | null = null;
  private previousWasPodHeader = false;
  /** Metadata and sample lines in the current section, and whether any POD header was seen. */
  private sectionContent = 0;
  private sawPodHeader = false;
  private lastLine = 0;
  private readonly om: OpenMetricsChecker | null;
  /**
   * Lines already reported (strict mode only): a line can break several rules, and the grammar
   * checker reports some of them later (a histogram group when it closes, a missing `# EOF`),
   * but one bad line is one rejection. Lenient mode reports at most once per line by construction.
   */
  private readonly rejected: Set<number> | null;

  constructor(
    private readonly input: InputInfo,
    private readonly sink: ParserSink,
    private readonly strict: boolean,
  ) {
    this.rejected = strict ? new Set() : null;
    this.om = strict ? new OpenMetricsChecker((line, reason) => this.reject(line, `OpenMetrics: ${reason}`)) : null;
  }

  private reject(line: number, reason: string): void {
    if (this.rejected) {
      if (this.rejected.has(line)) return;
      this.rejected.add(line);
    }
    this.sink.unparsed(line, reason);
  }

  line(text: string, lineNo: number): void {
    this.lastLine = lineNo;
    const wasPodHeader = this.previousWasPodHeader;
    this.previousWasPodHeader = false;
    if (text === '#') {
      // Part of the `#` / `# POD …` / `#` frame; a lone `#` elsewhere is a 0.0.4 comment.
      if (this.strict && !wasPodHeader) this.loneHashLine = lineNo;
      return;
    }
    const pendingLoneHash = this.loneHashLine;
    this.loneHashLine = null;
    if (text.startsWith('# POD ')) {
      const pod = POD_HEADER.exec(text);
      if (pod) {
        this.startSection({ name: pod[1]!, index: Number(pod[2]), of: Number(pod[3]) }, lineNo);
        this.previousWasPodHeader = true;
        return;
      }
    }
    if (pendingLoneHash !== null) this.om?.violation(pendingLoneHash, 'a lone "#" is not OpenMetrics');
    if (text.startsWith('# ERROR')) {
      const err = SCRAPE_ERROR.exec(text);
      if (err) {
        this.sink.emit({ kind: 'metric-scrape-error', path: this.input.path, line: lineNo, ...this.podFields(), section: this.section.name, message: err[1]!.trim() });
        return;
      }
    }
    const afterEof = this.eofLine !== null;
    if (afterEof) {
      if (text.trim() === '') return;
      // Text after `# EOF` without a new POD header: a second exposition glued on. Read it as a new
      // section of the same pod so its repeated HELP/TYPE lines are not clashes.
      this.resetFamilies();
    }
    if (text.trim() === '') {
      this.om?.violation(lineNo, 'blank line');
      return;
    }
    const trimmed = text.trimStart();
    this.sectionContent++;
    if (trimmed.charCodeAt(0) === 35 /* # */) this.comment(trimmed, lineNo);
    else this.sample(trimmed, lineNo);
    // After the line's own verdict, so a line that cannot be read at all is named for that.
    if (afterEof) this.om?.violation(lineNo, 'text after "# EOF"');
    if (isSpace(text.charCodeAt(0))) this.om?.violation(lineNo, 'leading whitespace');
  }

  end(): void {
    this.finishSection(true);
  }

  private podFields(): { pod?: string; namespace?: string; container?: string } {
    const pod = this.section.name ?? this.input.pod;
    return {
      ...(pod !== undefined ? { pod } : {}),
      ...(this.input.namespace !== undefined ? { namespace: this.input.namespace } : {}),
      ...(this.input.container !== undefined && this.section.name === null ? { container: this.input.container } : {}),
    };
  }

  private startSection(section: Section, _lineNo: number): void {
    this.finishSection(false);
    this.section = section;
    this.sawPodHeader = true;
    this.resetFamilies();
  }

  private finishSection(final: boolean): void {
    if (this.om) {
      if (this.loneHashLine !== null) this.om.violation(this.loneHashLine, 'a lone "#" is not OpenMetrics');
      this.loneHashLine = null;
      // A section needs `# EOF` once it exposed anything; so does an input without any POD section,
      // even an empty one (the OpenMetrics suite's bad_no_eof). An input without a single line has
      // no line to name, so that rejection goes to line 0, the input as a whole (see ParserSink).
      const needsEof = this.sectionContent > 0 || (final && !this.sawPodHeader);
      this.om.endSection(this.eofLine !== null || !needsEof, this.lastLine);
    }
    this.sectionContent = 0;
  }

  private resetFamilies(): void {
    this.meta = new Map();
    this.resolved = new Map();
    this.seen = new SeriesSet();
    this.eofLine = null;
    this.om?.reset();
  }

  private comment(text: string, lineNo: number): void {
    if (text === '# EOF') {
      this.om?.eof(lineNo);
      this.eofLine = lineNo;
      return;
    }
    // The name may be quoted (`# TYPE "my.metric" counter`), as Prometheus 3 writes UTF-8 names.
    const m = /^#[ \t]+(HELP|TYPE|UNIT)(?:[ \t]+("(?:[^"\\]|\\.)*"|\S+)(?:([ \t])(.*))?)?$/s.exec(text);
    if (!m) {
      // Free-form 0.0.4 comment (the linkerd frame, notes people add by hand).
      this.om?.violation(lineNo, `"${text.slice(0, 40)}" is not an OpenMetrics metadata line`);
      return;
    }
    const keyword = m[1] as 'HELP' | 'TYPE' | 'UNIT';
    const name = m[2]?.startsWith('"') ? m[2].slice(1, -1).replace(/\\(.)/g, '$1') : m[2];
    const rest = m[4];
    const type = (rest ?? '').trim().toLowerCase();
    // Before the grammar checker, which also objects to the type: the lenient verdict names the line.
    const unknownType = keyword === 'TYPE' && name !== undefined && !TEXT_TYPES.has(type);
    if (unknownType) this.reject(lineNo, `unknown metric type "${rest ?? ''}"`);
    if (this.om) {
      const exact = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/s.exec(text);
      if (!exact) this.om.violation(lineNo, `malformed # ${keyword} line`);
      else this.om.metadata(lineNo, keyword, exact[2]!, exact[3]!);
    }
    if (name === undefined || unknownType) return;
    const meta = this.meta.get(name) ?? {};
    if (keyword === 'TYPE') {
      meta.type = type;
      this.resolved.clear();
    } else if (keyword === 'HELP') meta.help = true;
    else meta.unit = (rest ?? '').trim();
    this.meta.set(name, meta);
  }

  private sample(text: string, lineNo: number): void {
    const lexed = lexSample(text, this.previousSample);
    if (typeof lexed === 'string') {
      this.previousSample = null;
      this.reject(lineNo, lexed);
      return;
    }
    this.previousSample = lexed.reusable ?? null;
    const { family, type } = this.resolve(lexed.name);
    const duplicate = !this.addSeries(lexed);
    if (this.om) {
      for (const v of lexed.violations) this.om.violation(lineNo, v);
      this.om.sample(lineNo, lexed);
    }
    const record: MetricSampleRecord = {
      kind: 'metric-sample',
      path: this.input.path,
      line: lineNo,
      ...this.podFields(),
      section: this.section.name,
      family,
      name: lexed.name,
      type,
      labels: lexed.labels,
      value: lexed.value,
      timestamp: lexed.timestampText === null ? null : Number(parseNumber(lexed.timestampText)),
    };
    if (!Number.isFinite(lexed.value)) record.valueText = lexed.valueText;
    const unit = this.meta.get(family)?.unit;
    if (unit) record.unit = unit;
    if (lexed.exemplar) record.exemplar = { labels: lexed.exemplar.labels, value: lexed.exemplar.value, timestamp: lexed.exemplar.timestamp };
    if (duplicate) record.duplicate = true;
    this.sink.emit(record);
  }

  /** Remembers the sample's series; false when the section already had it. */
  private addSeries(lexed: LexedSample): boolean {
    const prefix = lexed.reusable?.prefix;
    if (prefix === undefined) return this.seen.add(lexed.seriesText);
    if (prefix !== this.hashedPrefix) {
      this.hashedPrefix = prefix;
      this.hashedPrefixState = prefixState(prefix, prefix.length);
    }
    return this.seen.add(lexed.seriesText, prefix.length, this.hashedPrefixState);
  }

  /**
   * Family and type of a sample name: the name itself when `# TYPE` declared it (legacy proxies
   * type `request_total` as a counter), else the name without an OpenMetrics suffix when that
   * family's type owns the suffix (`process_cpu_seconds_total` under `# TYPE process_cpu_seconds counter`).
   */
  private resolve(name: string): { family: string; type: MetricType } {
    const cached = this.resolved.get(name);
    if (cached) return cached;
    let result: { family: string; type: MetricType } | null = null;
    const direct = this.meta.get(name)?.type;
    if (direct) result = { family: name, type: direct as MetricType };
    else {
      for (const suffix of RESOLVE_SUFFIXES) {
        if (!name.endsWith(suffix)) continue;
        const base = name.slice(0, -suffix.length);
        const type = this.meta.get(base)?.type;
        if (type && TYPE_SUFFIXES[type]?.includes(suffix)) {
          result = { family: base, type: type as MetricType };
          break;
        }
      }
    }
    result ??= { family: name, type: 'untyped' };
    if (this.resolved.size < 10_000) this.resolved.set(name, result);
    return result;
  }
}

// ------------------------------------------------------------------ OpenMetrics strictness

interface StrictFamily {
  name: string;
  type: string;
  help: boolean;
  unit: string | null;
  typeDeclared: boolean;
  hasSamples: boolean;
  groups: Set<string>;
  group: StrictGroup | null;
}

interface StrictGroup {
  key: string;
  line: number;
  lastLe: number | null;
  lastBucketValue: number | null;
  infBucket: number | null;
  negativeBucket: boolean;
  buckets: number;
  count: number | null;
  sum: number | null;
  afterBuckets: boolean;
  /** Timestamps of the points seen per series in this group (`undefined` = point without one). */
  timestamps: Map<string, number | null>;
}

/**
 * The rules of the OpenMetrics 1.0 text format that a line-by-line reader cannot see from one
 * line alone: metadata placement and uniqueness, family grouping, per-type sample names and
 * values, histogram bucket structure, timestamps order and the `# EOF` terminator.
 */
class OpenMetricsChecker {
  private family: StrictFamily | null = null;
  /** Family names and the sample names they own, to catch clashes and interleaving. */
  private used = new Set<string>();
  private eofSeen = false;

  /** `report` receives each violation; the parser keeps it to one rejection per line. */
  constructor(private readonly report: (line: number, reason: string) => void) {}

  violation(line: number, reason: string): void {
    this.report(line, reason);
  }

  reset(): void {
    this.family = null;
    this.used = new Set();
    this.eofSeen = false;
  }

  eof(line: number): void {
    this.closeFamily(line);
    this.eofSeen = true;
  }

  endSection(complete: boolean, lastLine: number): void {
    this.closeFamily(lastLine);
    if (!complete) this.violation(lastLine, 'missing "# EOF" at the end of the exposition');
  }

  metadata(line: number, keyword: 'HELP' | 'TYPE' | 'UNIT', name: string, rest: string): void {
    if (keyword === 'TYPE' && !OM_TYPES.has(rest)) {
      this.violation(line, `invalid type "${rest}"`);
      return;
    }
    let family = this.family;
    if (family && family.name === name) {
      if (family.hasSamples) this.violation(line, `# ${keyword} for "${name}" after its samples`);
    } else {
      this.closeFamily(line);
      if (this.used.has(name)) this.violation(line, `"${name}" clashes with an earlier family or is not contiguous`);
      family = this.openFamily(name, 'unknown');
    }
    if (keyword === 'HELP') {
      if (family.help) this.violation(line, `repeated # HELP for "${name}"`);
      family.help = true;
    } else if (keyword === 'TYPE') {
      if (family.typeDeclared) this.violation(line, `repeated # TYPE for "${name}"`);
      family.type = rest;
      family.typeDeclared = true;
      for (const sampleName of sampleNames(name, rest)) {
        if (sampleName !== name && this.used.has(sampleName)) this.violation(line, `samples of "${name}" would clash with family "${sampleName}"`);
        this.used.add(sampleName);
      }
    } else {
      if (family.unit !== null) this.violation(line, `repeated # UNIT for "${name}"`);
      family.unit = rest;
      if (rest !== '' && !name.endsWith(`_${rest}`)) this.violation(line, `family "${name}" must end with its unit "_${rest}"`);
    }
    if (family.unit && (family.type === 'info' || family.type === 'stateset')) this.violation(line, `${family.type} families cannot have a unit`);
  }

  sample(line: number, s: LexedSample): void {
    if (this.eofSeen) return;
    let family = this.family;
    if (!family || !sampleNames(family.name, family.type).includes(s.name)) {
      if (family && family.name === s.name) {
        this.violation(line, `"${s.name}" is not a sample name of a ${family.type} family (expected ${sampleNames(family.name, family.type).join(', ')})`);
      }
      this.closeFamily(line);
      if (this.used.has(s.name)) this.violation(line, `samples of "${s.name}" are not contiguous or clash with another family`);
      family = this.openFamily(s.name, 'unknown');
      this.used.add(s.name);
    }
    family.hasSamples = true;
    const suffix = s.name.slice(family.name.length);
    const type = family.type;
    const v = s.value;
    const isBucket = (type === 'histogram' || type === 'gaugehistogram') && suffix === '_bucket';
    if (s.exemplar) {
      const allowed = (type === 'counter' && suffix === '_total') || isBucket;
      if (!allowed) this.violation(line, 'exemplars are only allowed on counter _total and histogram _bucket samples');
      if (s.exemplar.codePoints > EXEMPLAR_MAX_CODE_POINTS) this.violation(line, `exemplar labels exceed ${EXEMPLAR_MAX_CODE_POINTS} code points`);
      if (s.exemplar.timestamp !== null && !Number.isFinite(s.exemplar.timestamp)) this.violation(line, 'exemplar timestamp must be finite');
    }
    // Group: one metric point per label set (minus le/quantile), which must be contiguous.
    const groupLabels = { ...s.labels };
    if (isBucket) delete groupLabels.le;
    if (type === 'summary' && suffix === '') delete groupLabels.quantile;
    if (type === 'stateset') delete groupLabels[family.name];
    const key = Object.keys(groupLabels).sort().map((k) => `${k}=${groupLabels[k]}`).join('\u0000');
    if (!family.group || family.group.key !== key) {
      this.closeGroup(family);
      if (family.groups.has(key)) this.violation(line, `metric points of "${family.name}" with the same labels are not contiguous`);
      family.groups.add(key);
      family.group = newGroup(key, line);
    }
    const g = family.group!;
    const seriesKey = s.seriesText;
    const ts = s.timestampText === null ? null : Number(parseNumber(s.timestampText));
    if (g.timestamps.has(seriesKey)) {
      const previous = g.timestamps.get(seriesKey)!;
      if (previous === null || ts === null) this.violation(line, 'repeated series needs a timestamp on every point');
      else if (ts < previous) this.violation(line, 'timestamps of a series must not go backwards');
    }
    g.timestamps.set(seriesKey, ts);
    switch (type) {
      case 'counter':
        if (suffix === '_total' && (Number.isNaN(v) || v < 0)) this.violation(line, 'counter value must be a non-negative number');
        break;
      case 'info':
        if (v !== 1) this.violation(line, 'info value must be 1');
        break;
      case 'stateset':
        if (!(family.name in s.labels)) this.violation(line, `stateset sample needs the label "${family.name}"`);
        if (v !== 0 && v !== 1) this.violation(line, 'stateset value must be 0 or 1');
        break;
      case 'summary':
        if (suffix === '') {
          const q = s.labels.quantile;
          const qv = q === undefined ? null : OM_REAL.test(q) ? Number(q) : null;
          if (qv === null || qv < 0 || qv > 1) this.violation(line, 'summary quantile label must be a number in [0, 1]');
          if (v < 0) this.violation(line, 'quantile value must not be negative');
        } else if (suffix === '_count' || suffix === '_sum') {
          if (Number.isNaN(v) || v < 0) this.violation(line, `summary ${suffix} must be a non-negative number`);
        }
        break;
      case 'histogram':
      case 'gaugehistogram':
        this.histogramSample(line, type, suffix, s, g);
        break;
    }
  }

  private histogramSample(line: number, type: string, suffix: string, s: LexedSample, g: StrictGroup): void {
    const v = s.value;
    if (suffix === '_bucket') {
      if (g.afterBuckets) this.violation(line, 'bucket after _count/_sum');
      const le = s.labels.le;
      const bound = le === undefined ? null : le === '+Inf' ? Infinity : OM_REAL.test(le) ? Number(le) : null;
      if (bound === null) {
        this.violation(line, 'bucket needs a numeric le label');
        return;
      }
      if (g.lastLe !== null && bound <= g.lastLe) this.violation(line, 'buckets must be sorted by le');
      if (Number.isNaN(v) || v < 0) this.violation(line, 'bucket value must be a non-negative number');
      if (g.lastBucketValue !== null && v < g.lastBucketValue) this.violation(line, 'bucket values must be cumulative');
      if (bound < 0) g.negativeBucket = true;
      if (bound === Infinity) g.infBucket = v;
      g.lastLe = bound;
      g.lastBucketValue = v;
      g.buckets++;
      return;
    }
    g.afterBuckets = true;
    const countSuffix = type === 'histogram' ? '_count' : '_gcount';
    const sumSuffix = type === 'histogram' ? '_sum' : '_gsum';
    if (suffix === countSuffix) {
      if (Number.isNaN(v) || v < 0) this.violation(line, `${suffix} must be a non-negative number`);
      g.count = v;
    } else if (suffix === sumSuffix) {
      if (Number.isNaN(v)) this.violation(line, `${suffix} must not be NaN`);
      if (v < 0 && !g.negativeBucket) this.violation(line, `${suffix} may only be negative when a bucket is negative`);
      if (type === 'histogram' && g.negativeBucket) this.violation(line, 'a histogram with negative buckets must not have _sum');
      g.sum = v;
    }
  }

  private openFamily(name: string, type: string): StrictFamily {
    const family: StrictFamily = { name, type, help: false, unit: null, typeDeclared: false, hasSamples: false, groups: new Set(), group: null };
    this.used.add(name);
    this.family = family;
    return family;
  }

  private closeFamily(_line: number): void {
    if (this.family) this.closeGroup(this.family);
    this.family = null;
  }

  private closeGroup(family: StrictFamily): void {
    const g = family.group;
    family.group = null;
    if (!g || (family.type !== 'histogram' && family.type !== 'gaugehistogram')) return;
    const what = family.name;
    if (g.infBucket === null) this.violation(g.line, `histogram "${what}" has no +Inf bucket`);
    if ((g.count === null) !== (g.sum === null)) this.violation(g.line, `histogram "${what}" needs both count and sum, or neither`);
    if (g.count !== null && g.infBucket !== null && g.count !== g.infBucket) this.violation(g.line, `histogram "${what}" count differs from its +Inf bucket`);
  }
}

function newGroup(key: string, line: number): StrictGroup {
  return {
    key, line, lastLe: null, lastBucketValue: null, infBucket: null, negativeBucket: false, buckets: 0, count: null, sum: null, afterBuckets: false,
    timestamps: new Map(),
  };
}

function sampleNames(family: string, type: string): string[] {
  return (TYPE_SUFFIXES[type] ?? ['']).map((suffix) => family + suffix);
}
