// Reading inputs in order on this thread: every source of a discovery, entry by entry, and the
// input errors a run reports when nothing could be analysed. The parallel reader (parallel.ts)
// and its tasks (tasks.ts) read each source through readSource too.

import type { Readable } from 'node:stream';
import { InputError } from '../core/errors.js';
import type { InputStats, LdRecord } from '../core/types.js';
import { diskPathOf, type Discovery, type InputSource } from '../input/discover.js';
import { bytesWhenRead } from '../input/inflated-size.js';
import { primeFile, releasePrimed, type PrimedFile } from '../input/file-range.js';
import { openSource, RUN_SCOPE, type InputEntry } from '../input/open.js';
import { SNIFF_LINES } from '../parsers/sniff.js';
import type { ParserOptions } from '../parsers/parser.js';
import { readEntry, type EntryCallbacks } from './pipeline.js';

export interface ReadProgress {
  start(totalBytes: number | null): void;
  file(path: string): void;
  /** Bytes and lines read since the last call. */
  bytes(count: number, lines: number): void;
  stop(): void;
}

export interface ReadOptions extends ParserOptions {
  stdin?: Readable;
  progress?: ReadProgress;
  /** Called for each unparsed line (for `parse` diagnostics). */
  onUnparsed?: (stats: InputStats, line: number, reason: string) => void;
}

export interface ReadResult {
  inputs: InputStats[];
  errors: InputError[];
  /** Skipped on purpose and not fatal (symlink loops, FIFOs in a folder): printed as notices. */
  notices: InputError[];
}

/** Reads every source of a discovery in input order on this thread, records to `onRecord`. */
export async function readDiscovered(discovery: Discovery, onRecord: (record: LdRecord) => void, options: ReadOptions): Promise<ReadResult> {
  const errors = [...discovery.errors];
  const inputs: InputStats[] = [];
  if (options.progress) options.progress.start(knownTotalBytes(discovery, await bytesWhenRead(discovery.sources)));
  const callbacks: EntryCallbacks = {
    record: onRecord,
    bytes: options.progress ? (n, lines) => options.progress!.bytes(n, lines) : undefined,
    unparsed: options.onUnparsed,
  };
  try {
    await readSources(discovery.sources, callbacks, options, inputs, errors);
  } finally {
    options.progress?.stop();
  }
  reportUnrecognised(discovery, inputs, errors);
  return { inputs, errors, notices: discovery.notices };
}

/** The bytes the reader will count (inflated ones for gzip, `readBytes`), unknown with stdin. */
export function knownTotalBytes(discovery: Discovery, readBytes: ReadonlyMap<string, number>): number | null {
  return discovery.sources.every((s) => s.type === 'file')
    ? discovery.sources.reduce((n, s) => n + (s.type === 'file' ? (readBytes.get(s.path) ?? s.size) : 0), 0)
    : null;
}

const NOTHING_RECOGNISABLE = 'nothing recognisable (no proxy log, metrics dump, dig output or CoreDNS log found)';
/** Names listed in a one-line error before the rest is only counted. */
const LISTED_NAMES = 3;

/** `a, b, c and 99997 more`: one short line however many names there are. */
export function listNames(names: readonly string[], shown = LISTED_NAMES): string {
  const head = names.slice(0, shown).join(', ');
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}

/**
 * An input set that yields nothing to analyse is an input error, so a CI job whose capture step
 * failed cannot go green: a directory or glob with no files (hidden entries and node_modules are
 * skipped) or with nothing recognisable, and a command line whose inputs are all unrecognised.
 * Containers whose files already failed with an error are not reported twice.
 */
export function reportUnrecognised(discovery: Discovery, inputs: readonly InputStats[], errors: InputError[]): void {
  collapseRunBudgetErrors(errors);
  flagFormatSwitches(inputs, errors);
  const failedUnder = (container: string) =>
    errors.some((e) => e.path === container || e.path.startsWith(container.endsWith('/') ? container : `${container}/`));
  const originOf = new Map<string, string>();
  const withFiles = new Set<string>();
  for (const s of discovery.sources) {
    originOf.set(s.path, s.origin);
    withFiles.add(s.origin);
  }
  const recognised = new Set<string>();
  for (const input of inputs) {
    // An input of no known kind counts once the last look found failure words in it.
    if (input.kind === 'unknown' && input.records === 0) continue;
    const origin = sourceOrigin(input.path, originOf);
    if (origin !== undefined) recognised.add(origin);
  }
  for (const container of discovery.containers) {
    if (failedUnder(container)) continue;
    if (!withFiles.has(container)) errors.push(new InputError(container, 'no input files found (hidden entries and node_modules folders are skipped)'));
    else if (!recognised.has(container)) errors.push(new InputError(container, NOTHING_RECOGNISABLE));
  }
  if (errors.length > 0) return;
  if (inputs.some((i) => i.kind !== 'unknown' || i.records > 0)) {
    noteUnrecognised(inputs, discovery.notices);
    return;
  }
  const searched = inputs.length > 0 ? inputs.map((i) => i.path) : discovery.sources.map((s) => s.path);
  errors.push(
    new InputError(listNames(searched.length > 0 ? searched : ['(no inputs)']), inputs.length > 0 ? NOTHING_RECOGNISABLE : 'no input entries to read'),
  );
}

/**
 * Beside recognised inputs, an unrecognised one is no error (bundles carry READMEs), but one longer
 * than the sniff window was judged by its head alone: a proxy log behind more than SNIFF_LINES
 * lines of other output is such a file, and its storm would otherwise pass without a word. One
 * notice names them; a short file was read whole and is simply not a log.
 */
function noteUnrecognised(inputs: readonly InputStats[], notices: InputError[]): void {
  const judgedByHead = inputs.filter((i) => i.kind === 'unknown' && i.lines > SNIFF_LINES).map((i) => i.path);
  if (judgedByHead.length === 0) return;
  notices.push(
    new InputError(
      listNames(judgedByHead),
      `not analysed: no known input kind in the first ${SNIFF_LINES} lines (cut a longer preamble to have a log behind it read)`,
    ),
  );
}

/**
 * An input is read as the kind its first lines show. One that goes on in another format (70
 * lines of dig, then a proxy log) has the rest of its lines rejected, and whatever they hold (a
 * storm) is never analysed: an input error, so the gate cannot pass on it. The pipeline sets
 * `switchedTo` only when the rejected lines read as another known kind by themselves, so a proxy
 * log followed by the app's own output (`kubectl logs --all-containers`) is no error: its
 * unparsed lines are counted in the report header as usual.
 */
function flagFormatSwitches(inputs: readonly InputStats[], errors: InputError[]): void {
  for (const input of inputs) {
    if (input.switchedTo === undefined || input.kind === 'unknown') continue;
    if (errors.some((e) => e.path === input.path)) continue;
    errors.push(
      new InputError(
        input.path,
        `${input.unparsed} of ${input.lines} lines did not parse as ${input.kind}, the kind its first lines show; they read as ${input.switchedTo}: the input changes format, and the rest was not analysed; split it into one file per format`,
      ),
    );
  }
}

/** Once the run's gzip budget is spent every later gzip input stops at once: one line says so, with a count. */
function collapseRunBudgetErrors(errors: InputError[]): void {
  const spent = errors.filter((e) => e.message.includes(RUN_SCOPE));
  if (spent.length < 2) return;
  const first = spent[0]!;
  const kept = errors.filter((e) => !spent.includes(e) || e === first);
  errors.splice(0, errors.length, ...kept);
  errors[errors.indexOf(first)] = new InputError(
    first.path,
    `${first.message}; ${spent.length - 1} later gzip input(s) stopped too: ${listNames(spent.slice(1).map((e) => e.path))}`,
  );
}

/**
 * The argument an input came from: its file's, or for a member of an archive (`archive:member`)
 * the archive's. The archive's own name may hold colons (`capture:2024-06-05.tgz`), so every
 * colon is tried, not only the first. A map, not a search: 100,000 files are 100,000 inputs.
 */
function sourceOrigin(inputPath: string, originOf: ReadonlyMap<string, string>): string | undefined {
  const direct = originOf.get(inputPath);
  if (direct !== undefined) return direct;
  for (let colon = inputPath.indexOf(':'); colon !== -1; colon = inputPath.indexOf(':', colon + 1)) {
    const origin = originOf.get(inputPath.slice(0, colon));
    if (origin !== undefined) return origin;
  }
  return undefined;
}

/**
 * Reads sources in order. While one is read, the next file is opened and its first chunk read
 * (primeFile): in a folder of small pod logs the open and the first read were round trips through
 * the thread pool that the reader sat waiting for, file after file.
 */
export async function readSources(
  sources: readonly InputSource[],
  callbacks: EntryCallbacks,
  options: ReadOptions,
  inputs: InputStats[],
  errors: InputError[],
  until = Infinity,
): Promise<void> {
  let next: Promise<PrimedFile> | null = null;
  try {
    for (let i = 0; i < sources.length; i++) {
      const primed = next;
      const following = sources[i + 1];
      next = following?.type === 'file' ? primeFile(diskPathOf(following), following.size) : null;
      // A failure surfaces when that source is read, with the same words as without the head start.
      next?.catch(() => undefined);
      await readSource(sources[i]!, callbacks, options, inputs, errors, until, primed ?? undefined);
    }
  } finally {
    await next?.then(releasePrimed, () => undefined);
  }
}

/** Reads one entry, noting its statistics and its error (returned too: one naming another path stops the source). */
export async function readNoting(
  entry: InputEntry,
  callbacks: EntryCallbacks,
  options: ReadOptions,
  inputs: InputStats[],
  errors: InputError[],
): Promise<InputError | undefined> {
  options.progress?.file(entry.path);
  const result = await readEntry(entry, callbacks, options);
  inputs.push(result.stats);
  if (result.error) errors.push(result.error);
  return result.error;
}

/**
 * Reads every entry of one source (a file, a gzip file, each member of a tar bundle, stdin) in
 * order; with `until`, only the tar members that start before that many stored bytes (the rest of
 * a bundle shared by two threads, engine/archive.ts). `primed`: the file, already opened.
 */
export async function readSource(
  source: InputSource,
  callbacks: EntryCallbacks,
  options: ReadOptions,
  inputs: InputStats[],
  errors: InputError[],
  until = Infinity,
  primed?: Promise<PrimedFile>,
): Promise<void> {
  let failedEntry: InputError | null = null;
  let stored = 0;
  try {
    for await (const entry of openSource(source, options.stdin, undefined, primed)) {
      if (stored >= until) return;
      stored += entry.stored ?? 0;
      const error = await readNoting(entry, callbacks, options, inputs, errors);
      if (error) {
        if (error.path !== entry.path) return;
        failedEntry = error;
      }
    }
  } catch (err) {
    const archiveError = err instanceof InputError ? err : new InputError(source.path, err instanceof Error ? err.message : String(err));
    // A member that broke mid-read and the archive breaking are one failure: report it once, at
    // the member and line, with the archive's explanation.
    if (failedEntry && errors[errors.length - 1] === failedEntry) {
      errors[errors.length - 1] = new InputError(failedEntry.path, archiveError.message, failedEntry.line);
    } else {
      errors.push(archiveError);
    }
  }
}
