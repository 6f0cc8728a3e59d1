// Streams one input entry line by line: sniff its kind from the first lines, then hand every
// line to that kind's parser. Memory is bounded by the sniff window, one read chunk and the longest line.

import { InputError, describeSystemError } from '../core/errors.js';
import type { InputKind, InputStats, LdRecord } from '../core/types.js';
import { LineSplitter } from '../input/lines.js';
import { WrappedJsonJoiner } from '../input/wrapped-json.js';
import { metaFromPath } from '../util/path-meta.js';
import type { InputEntry } from '../input/open.js';
import { SNIFF_LINES, SniffWindow, sniffKind } from '../parsers/sniff.js';
import { PARSERS } from '../parsers/index.js';
import { lastLook } from '../parsers/last-look.js';
import type { LineParser, ParserOptions, ParserState } from '../parsers/parser.js';

/** Lines longer than this (in bytes) are not real log lines; they are counted as unparsed and skipped. */
export const MAX_LINE_BYTES = 1 << 20;
export const OVERLONG_LINE_REASON = `line longer than ${MAX_LINE_BYTES / (1 << 20)} MiB; skipped`;

/**
 * A Markdown heading or code fence, or a line holding only the bracket that opens a JSON
 * document: the input is documentation or data (a README, a test's expectations), not output.
 */
const MARKDOWN = /^(?:#{1,6} \S|```|[[{]\s*$)/;

export interface EntryCallbacks {
  record(record: LdRecord): void;
  /** Bytes and lines read since the last call, once per read chunk. */
  bytes?(count: number, lines: number): void;
  unparsed?(stats: InputStats, line: number, reason: string): void;
}

export interface EntryResult {
  stats: InputStats;
  /** Set when the entry could not be read to its end; records read before the failure were still delivered. */
  error?: InputError;
  /** The parser's state after the last line, when it can be saved (see LineParser.saveState). */
  endState?: ParserState;
}

/** Reading a byte range of a larger input: where it starts and what the parser knew there. */
export interface EntrySlice {
  /** Physical lines before the range; the range's first line is firstLine + 1. */
  linesBefore: number;
  kind: InputKind;
  parserState?: ParserState;
}

/** An entry to read: as opened by input/open.ts, or any source of byte chunks (a file range). */
export type ReadableEntry = Omit<InputEntry, 'stream'> & { stream: AsyncIterable<Buffer | string> };

export async function readEntry(
  entry: ReadableEntry,
  callbacks: EntryCallbacks,
  options: ParserOptions = {},
  forcedKind?: InputKind,
  slice?: EntrySlice,
): Promise<EntryResult> {
  const stats: InputStats = { path: entry.path, kind: 'unknown', bytes: 0, records: 0, unparsed: 0, lines: 0, ...metaFromPath(entry.path) };
  const firstLine = slice ? slice.linesBefore : 0;
  let lineNo = firstLine;
  let sniffBuffer: { text: string; line: number; overlong?: true }[] | null = slice ? null : [];
  const sniffWindow = new SniffWindow();
  let parser: LineParser | null = null;
  // The first lines the parser rejected (a sniff window's worth, at most): if they read as another
  // known kind, the input switched format after its head. App output mixed into a proxy log
  // (`kubectl logs --all-containers`) reads as no kind and is only counted.
  const rejected: string[] = [];

  const sink = {
    emit(record: LdRecord) {
      stats.records++;
      callbacks.record(record);
    },
    unparsed(line: number, reason: string, lines?: number) {
      stats.unparsed += lines ?? 1;
      // A whole object not read is named in the notice: where it is, and why.
      if (lines !== undefined) stats.firstUnreadObject ??= { line, reason };
      callbacks.unparsed?.(stats, line, reason);
    },
    skipped() {
      stats.records++;
    },
  };
  const start = (kind: InputKind) => {
    stats.kind = kind;
    const factory = PARSERS[kind];
    parser = factory ? factory(stats, sink, options) : null;
    if (slice?.parserState) parser?.restoreState?.(slice.parserState);
  };
  const flushSniff = () => {
    const buffered = sniffBuffer ?? [];
    sniffBuffer = null;
    start(forcedKind ?? sniffKind(buffered.filter((l) => !l.overlong).map((l) => l.text)));
    // Documentation (a bundle's README) that names failures is no evidence of one: an input of no
    // known kind whose head has a Markdown heading, a code fence or a bare JSON bracket gets no last look.
    if (!parser) documentation = buffered.some((l) => MARKDOWN.test(l.text));
    for (const l of buffered) {
      if (l.overlong) {
        if (parser) sink.unparsed(l.line, OVERLONG_LINE_REASON);
      } else read(l.text, l.line, false);
    }
  };
  /**
   * Hands a line to the parser; one it did not read (or any line, when no kind was found) gets
   * the last look for failure words (parsers/last-look.ts), whose record goes to the rules.
   */
  const read = (text: string, line: number, afterHead = true) => {
    const unparsedBefore = stats.unparsed;
    if (parser) {
      (parser as LineParser).line(text, line);
      if (stats.unparsed === unparsedBefore) return;
      if (afterHead && rejected.length < SNIFF_LINES) rejected.push(text);
    } else if (text.trim() !== '') unknownLines++;
    if (documentation) return;
    const found = lastLook(stats, line, text);
    if (found) {
      sink.emit(found);
      if (!parser) lastLookLines++;
    }
  };
  let documentation = false;
  /** Of an input of no known kind: its lines that are not blank, and those the last look took. */
  let unknownLines = 0;
  let lastLookLines = 0;
  if (slice) start(slice.kind);

  const deliver = (text: string, line: number) => {
    if (sniffBuffer) {
      sniffBuffer.push({ text, line });
      if (sniffWindow.add(text)) flushSniff();
      return;
    }
    read(text, line);
  };
  // A JSON log line a terminal wrapped is joined back before sniffing and parsing (input/wrapped-json.ts).
  const joiner = new WrappedJsonJoiner(deliver);
  const onLine = (text: string) => {
    lineNo++;
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    joiner.feed(text, lineNo);
  };
  // Inputs of unknown kind are not analysed, so only a parsed kind counts an overlong line as unparsed.
  const onOverlong = () => {
    joiner.end();
    lineNo++;
    if (sniffBuffer) {
      sniffBuffer.push({ text: '', line: lineNo, overlong: true });
      if (sniffWindow.add('')) flushSniff();
    } else if (parser) {
      sink.unparsed(lineNo, OVERLONG_LINE_REASON);
    }
  };
  const splitter = new LineSplitter(MAX_LINE_BYTES, { line: onLine, overlong: onOverlong });

  let error: InputError | undefined;
  try {
    // Async iteration also ends (with ERR_STREAM_PREMATURE_CLOSE) when a stream is destroyed
    // without an end or an error, which would otherwise leave the run waiting forever.
    for await (const data of entry.stream) {
      // Object-mode streams (Readable.from of strings) hand over text; everything else is bytes.
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      const before = lineNo;
      stats.bytes += chunk.length;
      splitter.write(chunk);
      stats.lines = lineNo - firstLine;
      callbacks.bytes?.(chunk.length, lineNo - before);
    }
    splitter.end();
  } catch (err) {
    // The error names the input and where it broke; the cut-off fragment is not a line.
    splitter.abandon();
    const reason = (err as NodeJS.ErrnoException)?.code === 'ERR_STREAM_PREMATURE_CLOSE' ? 'input closed before its end' : describeSystemError(err);
    error = err instanceof InputError ? err : new InputError(entry.path, reason, lineNo + 1);
  } finally {
    stats.lines = lineNo - firstLine;
    joiner.end();
    if (sniffBuffer) flushSniff();
    (parser as LineParser | null)?.end();
  }
  // An input of no known kind in which the last look found failure words was read that far: the
  // rest of its lines count as unread, so the report says how little was understood.
  if (stats.kind === 'unknown' && lastLookLines > 0) stats.unparsed = unknownLines - lastLookLines;
  if (rejected.length >= SNIFF_LINES && stats.kind !== 'unknown') {
    const other = sniffKind(rejected);
    if (other !== 'unknown' && other !== stats.kind) stats.switchedTo = other;
  }
  const endState = (parser as LineParser | null)?.saveState?.();
  const result: EntryResult = { stats };
  if (error) result.error = error;
  if (endState) result.endState = endState;
  return result;
}
