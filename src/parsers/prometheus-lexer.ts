// The line lexer of the Prometheus text and OpenMetrics formats: one sample line into its name,
// labels, value, timestamp and exemplar, plus the grammar constants the parser and the
// OpenMetrics checker share.
import { dict, lookupTable } from '../util/dict.js';

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
export const OM_REAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
export const OM_TYPES = new Set<string>(['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown']);
export const TEXT_TYPES = new Set<string>([...OM_TYPES, 'untyped']);
/** Exemplar label sets longer than this (names and values, in code points) are invalid OpenMetrics. */
export const EXEMPLAR_MAX_CODE_POINTS = 128;

/** Sample-name suffixes each family type owns, as OpenMetrics names them. */
export const TYPE_SUFFIXES: Record<string, readonly string[]> = lookupTable({
  counter: ['_total', '_created'],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  summary: ['', '_count', '_sum', '_created'],
  info: ['_info'],
  stateset: [''],
  gauge: [''],
  unknown: [''],
  untyped: [''],
});

/**
 * The violations of a line that has none, shared by such lines (frozen: nothing may add to it).
 * lexValueAndRest swaps it for a list of the line's own before it records anything.
 */
const NO_VIOLATIONS = Object.freeze([]) as unknown as string[];

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
  /** `name="value"` as written, for every label but the last (see lexLabelBlock's `known`). */
  segments: string[];
  /** The whole label block, `{…}`, of the line the prefix was taken from. */
  block: string;
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
  const labels: Record<string, string> = dict();
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
  if (previous !== null && name !== '' && violations.length === 0 && text.charCodeAt(pos) === 123) {
    const reused = lexSameBlock(text, pos, name, previous);
    if (reused !== null) return reused;
  }
  let seriesEnd = pos;
  const blockStart = pos;
  if (text.charCodeAt(pos) === 123) {
    const segments: string[] = [];
    const block = lexLabelBlock(text, pos, labels, labelNames, violations, name === '', previous, segments);
    if (typeof block === 'string') return block;
    if (name === '') {
      if (block.quotedName === null) return 'missing metric name';
      name = block.quotedName;
      violations.push('quoted metric names are not OpenMetrics 1.0');
    }
    pos = block.end;
    seriesEnd = pos;
    if (violations.length === 0 && block.lastItemStart > 0) {
      segments.length = labelNames.length - 1;
      reusable = {
        prefix: text.slice(0, block.lastItemStart),
        name,
        labels,
        labelNames,
        lastName: labelNames[labelNames.length - 1]!,
        segments,
        block: text.slice(blockStart, seriesEnd),
      };
    }
  }
  const sample = lexValueAndRest(text, pos, seriesEnd, name, labels, labelNames, violations);
  if (typeof sample !== 'string' && reusable) sample.reusable = reusable;
  return sample;
}

/**
 * The label set of a histogram's `_sum` and `_count` lines is its bucket lines' without `le`, and
 * a family's next series often repeats the previous label set under another name. A line whose
 * label block (from `{` at `pos`) is the previous line's, or the previous prefix's without its last
 * label, takes over those labels whole. Null when it is neither.
 */
function lexSameBlock(text: string, pos: number, name: string, previous: SamplePrefix): LexedSample | null {
  const full = previous.block;
  if (text.slice(pos, pos + full.length) === full) {
    const end = pos + full.length;
    const sample = lexValueAndRest(text, end, end, name, Object.assign(dict<string>(), previous.labels), previous.labelNames, NO_VIOLATIONS);
    if (typeof sample === 'string') return null;
    sample.reusable = previous;
    return sample;
  }
  // The prefix is `name{a="1",…,` up to the last label; without that comma it is the block less
  // its last label, when a `}` follows.
  const shorter = previous.prefix.length - previous.name.length - 1;
  if (text.charCodeAt(pos + shorter) !== 125 /* } */ || text.slice(pos, pos + shorter) !== previous.prefix.slice(previous.name.length, -1)) return null;
  // Built label by label: deleting the last label of a copy would leave the object in
  // dictionary mode, slow for every rule that reads it.
  const labelNames = previous.labelNames.slice(0, -1);
  const labels: Record<string, string> = dict();
  for (const labelName of labelNames) labels[labelName] = previous.labels[labelName]!;
  const end = pos + shorter + 1;
  const sample = lexValueAndRest(text, end, end, name, labels, labelNames, NO_VIOLATIONS);
  if (typeof sample === 'string') return null;
  const segments = previous.segments.slice(0, -1);
  if (labelNames.length > 1) {
    const lastItemStart = pos + shorter - previous.segments[segments.length]!.length;
    sample.reusable = {
      prefix: text.slice(0, lastItemStart),
      name,
      labels,
      labelNames,
      lastName: labelNames[labelNames.length - 1]!,
      segments,
      block: text.slice(pos, end),
    };
  }
  return sample;
}

/** The fast path of lexSample: the line repeats `previous.prefix`, then `lastName="…"}`. Null when it does not. */
function lexAfterPrefix(text: string, previous: SamplePrefix): LexedSample | null {
  let pos = previous.prefix.length;
  const lastName = previous.lastName;
  if (!text.startsWith(lastName, pos) || text.charCodeAt(pos + lastName.length) !== 61 /* = */ || text.charCodeAt(pos + lastName.length + 1) !== 34)
    return null;
  const value = readQuoted(text, pos + lastName.length + 1);
  if (typeof value === 'string') return null;
  pos = value.end;
  if (text.charCodeAt(pos) !== 125 /* } */) return null;
  const labels = Object.assign(dict<string>(), previous.labels);
  labels[lastName] = value.value;
  const sample = lexValueAndRest(text, pos + 1, pos + 1, previous.name, labels, previous.labelNames, NO_VIOLATIONS);
  if (typeof sample === 'string') return null;
  // The prefix and the labels before the last are the same, and the next line overwrites the
  // last label of its copy anyway: the previous prefix serves the next line as it is.
  sample.reusable = previous;
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
  // Nearly every dump line ends in one space and a plain decimal: nothing there can be a grammar
  // violation, so the line needs no violations list of its own (the shared empty one serves).
  if (text.charCodeAt(pos) === 32 && violations.length === 0) {
    const valueText = text.slice(pos + 1);
    if (isPlainDecimal(valueText))
      return {
        name,
        labels,
        labelNames,
        seriesText: text.slice(0, seriesEnd),
        valueText,
        value: Number(valueText),
        timestampText: null,
        exemplar: null,
        violations: NO_VIOLATIONS,
      };
  }
  if (violations === NO_VIOLATIONS) violations = [];
  if (!isSpace(text.charCodeAt(pos))) return pos >= text.length ? 'missing value' : 'expected a space before the value';
  if (text.charCodeAt(pos) !== 32 || isSpace(text.charCodeAt(pos + 1))) violations.push('tokens must be separated by exactly one space');
  while (isSpace(text.charCodeAt(pos))) pos++;
  const valueStart = pos;
  while (pos < text.length && !isSpace(text.charCodeAt(pos))) pos++;
  const valueText = text.slice(valueStart, pos);
  if (valueText === '') return 'missing value';
  let value: number | null;
  if (isPlainDecimal(valueText)) value = Number(valueText);
  else {
    value = parseNumber(valueText);
    if (value === null) return `invalid value "${valueText}"`;
    if (!OM_NUMBER.test(valueText)) violations.push(`value "${valueText}" is not an OpenMetrics number`);
  }
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
  const labels: Record<string, string> = dict();
  const names: string[] = [];
  const block = lexLabelBlock(text, pos, labels, names, violations, false, null, null);
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

/**
 * Whether a label name is readable. No memo: standard names (every name a proxy writes) are
 * settled by a loop, and only the rare others pay for the two regular expressions, so the lexer
 * keeps no state between lines, inputs or runs.
 */
function labelNameValidity(name: string): 'ok' | 'nonstandard' | 'control' {
  if (isStandardLabelName(name)) return 'ok';
  return CONTROL_CHARACTER.test(name) ? 'control' : LABEL_NAME.test(name) ? 'ok' : 'nonstandard';
}

/**
 * `[a-zA-Z_][a-zA-Z0-9_]*`, as a loop: every label name of a dump is one, and each is a new slice
 * of its line, so a map lookup would hash it first; the loop settles it in one pass.
 */
function isStandardLabelName(name: string): boolean {
  const n = name.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    // a-z, A-Z, _ anywhere; 0-9 after the first character.
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57 && i > 0)) continue;
    return false;
  }
  return true;
}

function lexLabelBlock(
  text: string,
  start: number,
  labels: Record<string, string>,
  names: string[],
  violations: string[],
  allowName: boolean,
  known: SamplePrefix | null,
  segments: string[] | null,
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
    // Consecutive label sets mostly repeat the previous one's labels at the same places (the same
    // direction, authority, workload…): a label written exactly as there is taken over whole, its
    // name and value strings included, instead of being scanned, sliced and checked again.
    const k = names.length;
    if (known !== null && k < known.segments.length) {
      const segment = known.segments[k]!;
      const end = pos + segment.length;
      // What follows the segment is read as after any label, so only the segment must match.
      if (text.slice(pos, end) === segment) {
        const labelName = known.labelNames[k]!;
        if (Object.prototype.hasOwnProperty.call(labels, labelName)) violations.push(`duplicate label "${labelName}"`);
        labels[labelName] = known.labels[labelName]!;
        names.push(labelName);
        if (segments !== null) segments.push(segment);
        pos = end;
        lastItemStart = itemStart;
        expectItem = false;
        afterComma = false;
        continue;
      }
    }
    const segmentStart = pos;
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
    if (segments !== null) segments.push(text.slice(segmentStart, pos));
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

/**
 * Digits with at most one `.` after the first: nearly every value in a dump, and valid for both
 * OM_REAL and OM_NUMBER, so a loop replaces the two regular-expression runs of parseNumber.
 */
function isPlainDecimal(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > 20) return false;
  let dot = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) continue;
    if (c !== 46 || dot || i === 0) return false;
    dot = true;
  }
  return true;
}

export function isSpace(c: number): boolean {
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
