import type { InputInfo, InputKind, LdRecord } from '../core/types.js';
import type { ParseContext } from './context.js';

/** What a parser may tell the pipeline while it reads one input. */
export interface ParserSink {
  emit(record: LdRecord): void;
  /**
   * A line that belongs to the input's format but could not be read; counted, never fatal. At most
   * once per line. In strict mode also a line the format's grammar rejects, even one whose record
   * was emitted (the record is still readable; the input fails the check). Line 0 is the input as
   * a whole, for a strict rejection of an input without a single line (an empty OpenMetrics
   * exposition lacks its `# EOF`); `InputError.toLine()` prints it without a line number.
   * `lines`: how many lines the rejection covers, from `line` on (a Kubernetes object that does
   * not parse costs all of its lines, counted once each), 1 when left out.
   */
  unparsed(line: number, reason: string, lines?: number): void;
  /** A line recognised as a record of the format but not built, because no rule reads it (see ParserOptions.interest). */
  skipped?(line: number): void;
}

/**
 * One streaming parser per input format. The pipeline feeds physical lines (newline and a
 * trailing CR removed) in order and calls end() once; parsers keep only the state the format
 * needs between lines.
 */
export interface LineParser {
  line(text: string, lineNo: number): void;
  end(): void;
  /**
   * The state a later line depends on (restart count, wall-time anchor…), as plain data. Parsers
   * that provide it let one input be read in byte ranges: a range starts from the state its
   * predecessor ended with, and the two can be compared.
   */
  saveState?(): ParserState;
  restoreState?(state: ParserState): void;
}

export type ParserState = Record<string, number | boolean | null>;

export interface ParserOptions {
  /** Reject input that a lenient reader would accept (used by `parse --strict`). */
  strict?: boolean;
  /**
   * Per input kind, substrings of which a line must contain one for any rule to read its record
   * (from RuleEngine.lineInterest()). A parser may then count other lines without building their
   * records. Only analyze sets it: `parse` prints every record.
   */
  interest?: Partial<Record<InputKind, readonly string[]>>;
  /**
   * The run's parse caches on this thread (parsers/context.ts), shared by every parser the run
   * creates there. Never sent to a worker: each thread of a run makes its own.
   */
  context?: ParseContext;
}

export type ParserFactory = (input: InputInfo, sink: ParserSink, options: ParserOptions) => LineParser;

/** Kinds a sniffer can name; `unknown` is what is left when none scores. */
export type SniffedKind = Exclude<InputKind, 'unknown'>;

/** What one of a format's sniff tests says of a line (or of a JSON document): whose, and how strongly. */
export interface SniffClaim {
  kind: SniffedKind;
  /** Added to the kind's score. 0 still claims the text: no later test sees it. */
  score: number;
  /** The text names the kind only when every telling line of the head is such a text (`dig +short` rdata). */
  onlyIfAll?: boolean;
}

/** One test a format declares for the sniffer (parsers/sniff.ts runs every format's tests). */
export interface SniffTest {
  /**
   * Place among all formats' tests, lowest first. The first test that claims a text ends its
   * scoring, so a pattern that is sure runs before a looser one another format may also match.
   */
  order: number;
  /** `line`: each line of the head; `json`: a JSON document assembled from one or more lines. */
  on: 'line' | 'json';
  claim(text: string): SniffClaim | null;
}

/** How a format is told from the first lines of an input, declared beside its parser. */
export interface FormatSniff {
  kind: SniffedKind;
  tests: readonly SniffTest[];
  /** When this kind scores best but `yieldsTo` scored at all, the input is read as `yieldsTo`. */
  yieldsTo?: SniffedKind;
}
