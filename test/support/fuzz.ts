// Shared pieces of the property-based tests: a fixed seed (override with LD_FUZZ_SEED to explore,
// and it is printed on every failure so a CI failure can be replayed), hostile-input generators,
// a helper that runs one input through the real pipeline, and the per-kind accounting oracle.

import { Readable } from 'node:stream';
import fc from 'fast-check';
import type { InputError } from '../../src/core/errors.js';
import type { InputKind, InputStats, LdRecord } from '../../src/core/types.js';
import { MAX_LINE_BYTES, OVERLONG_LINE_REASON, readEntry } from '../../src/engine/pipeline.js';
import { PARSERS } from '../../src/parsers/index.js';
import { RECORD_KINDS } from '../../src/commands/parse.js';
import { isPasteNoise } from '../../src/parsers/pasted.js';
import { isLastLookRecord } from '../../src/parsers/last-look.js';
import { ALL_LINES } from '../reliability/corpus.js';

export const FUZZ_SEED = Number(process.env.LD_FUZZ_SEED ?? 20251202);
export const FUZZ_RUNS = Number(process.env.LD_FUZZ_RUNS ?? 100);

/** Runs a property with the suite's seed; a failure names the seed and how to replay it. */
export async function checkProperty<T>(name: string, property: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>, numRuns = FUZZ_RUNS): Promise<void> {
  try {
    await fc.assert(property as fc.IAsyncProperty<T>, { seed: FUZZ_SEED, numRuns });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`property "${name}" failed with seed ${FUZZ_SEED} (replay: LD_FUZZ_SEED=${FUZZ_SEED} npm run test:unit)\n${message}`);
  }
}

// ---------------------------------------------------------------- generators

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Byte sequences that are not valid UTF-8, plus NUL, CR and a stray BOM. */
const HOSTILE_BYTES: readonly Buffer[] = [
  Buffer.from([0x00]),
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf0, 0x9f]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0x0d]),
  BOM,
  Buffer.from([0x1b, 0x5b, 0x33, 0x31, 0x6d]),
];

const corpusLine = fc.constantFrom(...ALL_LINES);
const cut = (text: string, n: number) => n % (text.length + 1);

/** One real line, possibly truncated, duplicated, spliced with another, or salted with bad bytes. */
export const mutatedLine: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: corpusLine.map((l) => Buffer.from(l)) },
  { weight: 2, arbitrary: fc.tuple(corpusLine, fc.nat()).map(([l, n]) => Buffer.from(l.slice(0, cut(l, n)))) },
  { weight: 1, arbitrary: fc.tuple(corpusLine, fc.nat()).map(([l, n]) => Buffer.from(l + l.slice(cut(l, n)))) },
  { weight: 2, arbitrary: fc.tuple(corpusLine, corpusLine, fc.nat(), fc.nat()).map(([a, b, i, j]) => Buffer.from(a.slice(0, cut(a, i)) + b.slice(cut(b, j)))) },
  {
    weight: 2,
    arbitrary: fc.tuple(corpusLine, fc.nat(), fc.constantFrom(...HOSTILE_BYTES)).map(([l, n, bad]) => {
      const bytes = Buffer.from(l);
      const at = n % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]);
    }),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60, unit: 'grapheme' }).map((s) => Buffer.from(s)) },
);

const separator = fc.constantFrom('\n', '\n', '\n', '\n', '\r\n', '\r', '\n\n');

/** A whole hostile file: mutated lines of every format, mixed line ends, maybe a BOM. */
export const hostileInput: fc.Arbitrary<Buffer> = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(mutatedLine, separator), { maxLength: 60 }),
    trailingNewline: fc.boolean(),
  })
  .map(({ bom, lines, trailingNewline }) => {
    const parts: Buffer[] = bom ? [BOM] : [];
    lines.forEach(([line, sep], i) => {
      parts.push(line);
      if (i < lines.length - 1 || trailingNewline) parts.push(Buffer.from(sep));
    });
    return Buffer.concat(parts);
  });

/** A line no format accepts: starts with a control character, never blank. */
export const garbageLine: fc.Arbitrary<string> = fc
  .string({ minLength: 1, maxLength: 30, unit: fc.constantFrom(...'abcxyzXYZ0189 :{}=#;[]"') })
  .map((s) => `\u0001${s}`);

/** Where to cut a buffer into chunks, so lines and UTF-8 sequences straddle chunk boundaries. */
export const chunkCuts = fc.array(fc.nat(), { maxLength: 12 });

export function toChunks(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  if (bytes.length === 0) return [];
  const offsets = [...new Set(cuts.map((c) => c % bytes.length))].filter((c) => c > 0).sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const o of [...offsets, bytes.length]) {
    chunks.push(bytes.subarray(start, o));
    start = o;
  }
  return chunks;
}

// ---------------------------------------------------------------- running the pipeline

export interface Outcome {
  stats: InputStats;
  records: LdRecord[];
  unparsed: { line: number; reason: string }[];
  error?: InputError;
}

export async function parseBytes(path: string, chunks: Buffer | readonly Buffer[], options: { kind?: InputKind; strict?: boolean } = {}): Promise<Outcome> {
  const records: LdRecord[] = [];
  const unparsed: { line: number; reason: string }[] = [];
  const list = Buffer.isBuffer(chunks) ? [chunks] : [...chunks];
  const result = await readEntry(
    { path, stream: Readable.from(list), size: null },
    { record: (r) => records.push(r), unparsed: (_s, line, reason) => unparsed.push({ line, reason }) },
    { strict: options.strict },
    options.kind,
  );
  return { stats: result.stats, records, unparsed, ...(result.error ? { error: result.error } : {}) };
}

// ---------------------------------------------------------------- the accounting oracle

/** Physical lines as a reader of the bytes sees them: split on LF, one CR before it dropped, BOM dropped. */
export function physicalLines(bytes: Buffer): string[] {
  return physicalLineBytes(bytes).map((b, i) => {
    const text = b.toString('utf8');
    return i === 0 && text.startsWith('\uFEFF') ? text.slice(1) : text;
  });
}

function physicalLineBytes(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, nl));
    start = nl + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines.map((l) => (l[l.length - 1] === 0x0d ? l.subarray(0, -1) : l));
}

const RECORD_KIND_SET: ReadonlySet<string> = new Set(RECORD_KINDS);

/**
 * How each kind accounts for its lines (docs/reliability.md):
 * - `line` kinds (proxy-log): every non-blank line starts a record or is unparsed, except the
 *   lines a collector joins into the record before them (CRI `P` continuation), collector
 *   lines whose payload is empty, kubectl/stern chatter, the inner lines of a pretty-printed
 *   JSON record, and the rows of a terminal-wrapped line after its first (as long as the row
 *   before them).
 * - `block` kinds (prometheus, dig, coredns-log, and any kind added later): metadata, comments and
 *   multi-line constructs may consume lines without a record, but a line is never both a record
 *   start and unparsed, and a line no format accepts is always reported unparsed.
 * - strict mode (`parse --strict`) is a conformance check on top of the lenient reader: it reads
 *   the same records and may additionally reject lines, record lines included, because a block
 *   grammar's rules are about several lines (a histogram group, a family, the `# EOF` that ends
 *   an exposition) and are pinned to one of them after its record went out. An input without a
 *   single line can only be rejected as a whole, at line 0. `strictViolation` checks the rest.
 */
export const ACCOUNTING: Partial<Record<InputKind, 'line' | 'block'>> = { 'proxy-log': 'line' };

// eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC.
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const CRI_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) (?:stdout|stderr) ([FP]) ?/s;
const TIMESTAMP_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) /s;

function payloadIsBlank(line: string): boolean {
  let text = line.replace(ANSI, '');
  if (text.startsWith('{"log":')) {
    try {
      const doc = JSON.parse(text) as { log?: unknown };
      if (typeof doc.log === 'string') return doc.log.trim() === '';
    } catch {
      // not Docker JSON after all
    }
  }
  text = text.replace(CRI_PREFIX, '').replace(TIMESTAMP_PREFIX, '');
  return text.trim() === '';
}

export function isCriPartial(line: string): boolean {
  return CRI_PREFIX.exec(line.replace(ANSI, ''))?.[1] === 'P';
}

/** Checks the accounting invariants; returns a description of the first violation, or null. */
export function accountingViolation(kind: InputKind, bytes: Buffer, outcome: Outcome, options: { strict?: boolean } = {}): string | null {
  const { stats, records, unparsed } = outcome;
  if (outcome.error) return `read error: ${outcome.error.toLine()}`;
  if (stats.records !== records.length) return `stats.records ${stats.records} but ${records.length} records delivered`;
  if (stats.unparsed !== unparsed.length) return `stats.unparsed ${stats.unparsed} but ${unparsed.length} reported`;
  const lines = physicalLines(bytes);
  if (stats.lines !== lines.length) return `stats.lines ${stats.lines} but the bytes hold ${lines.length} lines`;
  const recordLines = new Set<number>();
  for (const r of records) {
    if (!RECORD_KIND_SET.has(r.kind)) return `unknown record kind ${r.kind}`;
    if (r.path !== stats.path) return `record path ${r.path} is not the input path`;
    if (!Number.isInteger(r.line) || r.line < 1 || r.line > stats.lines) return `record line ${r.line} outside 1..${stats.lines}`;
    JSON.stringify(r);
    // The last look's evidence is read off a line that stays unparsed: it accounts for no line.
    if (!isLastLookRecord(r)) recordLines.add(r.line);
  }
  const unparsedLines = new Set<number>();
  const wholeInput = options.strict === true && stats.lines === 0;
  for (const u of unparsed) {
    const inRange = Number.isInteger(u.line) && ((u.line >= 1 && u.line <= stats.lines) || (wholeInput && u.line === 0));
    if (!inRange) return `unparsed line ${u.line} outside 1..${stats.lines}`;
    if (unparsedLines.has(u.line)) return `line ${u.line} reported unparsed twice`;
    if (typeof u.reason !== 'string' || u.reason === '') return `line ${u.line} unparsed without a reason`;
    unparsedLines.add(u.line);
  }
  if (!PARSERS[kind]) {
    return records.length + unparsed.length === 0 ? null : `kind ${kind} has no parser but produced output`;
  }
  if (!options.strict) for (const line of recordLines) if (unparsedLines.has(line)) return `line ${line} is both a record and unparsed`;
  const lineBytes = physicalLineBytes(bytes);
  for (let i = 0; i < lines.length; i++) {
    if (lineBytes[i]!.length > MAX_LINE_BYTES && !unparsed.some((u) => u.line === i + 1 && u.reason === OVERLONG_LINE_REASON))
      return `overlong line ${i + 1} not reported`;
  }
  if ((ACCOUNTING[kind] ?? 'block') === 'line') {
    // Lines a multi-line record (a pretty-printed JSON record) consumed after its first.
    const joined = new Set<number>();
    for (const r of records) {
      const raw = (r as { raw?: unknown }).raw;
      if (typeof raw === 'string') for (let k = 1, at = raw.indexOf('\n'); at !== -1; k++, at = raw.indexOf('\n', at + 1)) joined.add(r.line + k);
    }
    const wrapped = new Set<number>();
    const accounted = (n: number) => recordLines.has(n) || joined.has(n) || wrapped.has(n);
    for (let i = 0; i < lines.length; i++) {
      const n = i + 1;
      const line = lines[i]!;
      if (line.trim() === '' || accounted(n) || unparsedLines.has(n)) continue;
      const continuation = i > 0 && isCriPartial(lines[i - 1]!) && CRI_PREFIX.test(line.replace(ANSI, ''));
      if (continuation || payloadIsBlank(line) || joined.has(n) || isPasteNoise(line)) continue;
      if (i > 0 && accounted(i) && lines[i - 1]!.length === line.length) {
        wrapped.add(n);
        continue;
      }
      return `line ${n} (${JSON.stringify(line.slice(0, 80))}) is neither a record nor unparsed`;
    }
  }
  return null;
}

/**
 * Strict mode only adds rejections to the lenient reading of the same bytes: the same kind and
 * records, and every line the lenient reader could not read rejected for the same reason.
 */
export function strictViolation(lenient: Outcome, strict: Outcome): string | null {
  if (strict.stats.kind !== lenient.stats.kind) return `strict mode read kind ${strict.stats.kind}, lenient ${lenient.stats.kind}`;
  if (JSON.stringify(strict.records) !== JSON.stringify(lenient.records)) return 'strict mode read other records than lenient mode';
  const strictReasons = new Map(strict.unparsed.map((u) => [u.line, u.reason]));
  for (const u of lenient.unparsed) {
    const reason = strictReasons.get(u.line);
    if (reason !== u.reason)
      return `line ${u.line} is unparsed (${u.reason}) in lenient mode but ${reason === undefined ? 'not in strict mode' : `"${reason}" in strict mode`}`;
  }
  return null;
}
