import type { InputInfo, LdRecord } from '../core/types.js';

/** What a parser may tell the pipeline while it reads one input. */
export interface ParserSink {
  emit(record: LdRecord): void;
  /**
   * A line that belongs to the input's format but could not be read; counted, never fatal. At most
   * once per line. In strict mode also a line the format's grammar rejects, even one whose record
   * was emitted (the record is still readable; the input fails the check). Line 0 is the input as
   * a whole, for a strict rejection of an input without a single line (an empty OpenMetrics
   * exposition lacks its `# EOF`); `InputError.toLine()` prints it without a line number.
   */
  unparsed(line: number, reason: string): void;
}

/**
 * One streaming parser per input format. The pipeline feeds physical lines (newline and a
 * trailing CR removed) in order and calls end() once; parsers keep only the state the format
 * needs between lines.
 */
export interface LineParser {
  line(text: string, lineNo: number): void;
  end(): void;
}

export interface ParserOptions {
  /** Reject input that a lenient reader would accept (used by `parse --strict`). */
  strict?: boolean;
}

export type ParserFactory = (input: InputInfo, sink: ParserSink, options: ParserOptions) => LineParser;
