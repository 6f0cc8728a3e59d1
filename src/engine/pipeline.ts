// Streams one input entry line by line: sniff its kind from the first lines, then hand every
// line to that kind's parser. Memory is bounded by the sniff window and the longest line.

import { finished } from 'node:stream';
import { InputError, describeSystemError } from '../core/errors.js';
import type { InputKind, InputStats, LdRecord } from '../core/types.js';
import { LineSplitter } from '../input/lines.js';
import { metaFromPath } from '../input/path-meta.js';
import type { InputEntry } from '../input/open.js';
import { SNIFF_LINES, sniffKind } from '../input/sniff.js';
import { PARSERS } from '../parsers/index.js';
import type { LineParser, ParserOptions } from '../parsers/parser.js';

/** Lines longer than this (in bytes) are not real log lines; they are counted as unparsed and skipped. */
export const MAX_LINE_BYTES = 1 << 20;
export const OVERLONG_LINE_REASON = `line longer than ${MAX_LINE_BYTES / (1 << 20)} MiB; skipped`;

export interface EntryCallbacks {
  record(record: LdRecord): void;
  /** Called once the kind is known, before any record of the entry. */
  kind?(stats: InputStats): void;
  bytes?(count: number): void;
  unparsed?(stats: InputStats, line: number, reason: string): void;
}

export interface EntryResult {
  stats: InputStats;
  /** Set when the entry could not be read to its end; records read before the failure were still delivered. */
  error?: InputError;
}

export async function readEntry(entry: InputEntry, callbacks: EntryCallbacks, options: ParserOptions = {}, forcedKind?: InputKind): Promise<EntryResult> {
  const stats: InputStats = { path: entry.path, kind: 'unknown', bytes: 0, records: 0, unparsed: 0, lines: 0, ...metaFromPath(entry.path) };
  let sniffBuffer: string[] | null = [];
  /** Sniff-window positions of overlong lines, which the parser never sees. */
  let sniffOverlong: Set<number> | null = null;
  let parser: LineParser | null = null;

  const sink = {
    emit(record: LdRecord) {
      stats.records++;
      callbacks.record(record);
    },
    unparsed(line: number, reason: string) {
      stats.unparsed++;
      callbacks.unparsed?.(stats, line, reason);
    },
  };
  const start = (kind: InputKind) => {
    stats.kind = kind;
    callbacks.kind?.(stats);
    const factory = PARSERS[kind];
    parser = factory ? factory(stats, sink, options) : null;
  };
  const flushSniff = () => {
    const buffered = sniffBuffer ?? [];
    sniffBuffer = null;
    const skipped = sniffOverlong;
    start(forcedKind ?? sniffKind(skipped ? buffered.filter((_, i) => !skipped.has(i)) : buffered));
    if (!parser) return;
    buffered.forEach((l, i) => (skipped?.has(i) ? sink.unparsed(i + 1, OVERLONG_LINE_REASON) : parser!.line(l, i + 1)));
  };

  const onLine = (text: string) => {
    stats.lines++;
    if (stats.lines === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (sniffBuffer) {
      sniffBuffer.push(text);
      if (sniffBuffer.length >= SNIFF_LINES) flushSniff();
      return;
    }
    parser?.line(text, stats.lines);
  };
  // Inputs of unknown kind are not analysed, so only a parsed kind counts an overlong line as unparsed.
  const onOverlong = () => {
    stats.lines++;
    if (!sniffBuffer) {
      if (parser) sink.unparsed(stats.lines, OVERLONG_LINE_REASON);
      return;
    }
    (sniffOverlong ??= new Set()).add(sniffBuffer.length);
    sniffBuffer.push('');
    if (sniffBuffer.length >= SNIFF_LINES) flushSniff();
  };

  let error: InputError | undefined;
  await new Promise<void>((resolve, reject) => {
    // Lines are handled synchronously inside 'data', so the stream cannot outrun the parser and
    // nothing queues up between them.
    const lines = new LineSplitter(MAX_LINE_BYTES, { line: onLine, overlong: onOverlong });
    entry.stream.on('data', (data: Buffer | string) => {
      // Object-mode streams (Readable.from of strings) hand over text; everything else is bytes.
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      stats.bytes += chunk.length;
      callbacks.bytes?.(chunk.length);
      lines.write(chunk);
    });
    // finished() also settles when the stream is destroyed without an error or an end, which
    // would otherwise leave the run waiting forever.
    finished(entry.stream, (err) => {
      if (!err) {
        lines.end();
        return resolve();
      }
      // The error names the input and where it broke; the cut-off fragment is not a line.
      lines.abandon();
      const reason = (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' ? 'input closed before its end' : describeSystemError(err);
      reject(err instanceof InputError ? err : new InputError(entry.path, reason, stats.lines + 1));
    });
  })
    .catch((err: unknown) => {
      error = err instanceof InputError ? err : new InputError(entry.path, String(err));
    })
    .finally(() => {
      if (sniffBuffer) flushSniff();
      (parser as LineParser | null)?.end();
    });
  return error ? { stats, error } : { stats };
}
