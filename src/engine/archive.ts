// A large tar bundle read by two threads. A bundle is one compressed stream, so it cannot be cut
// into byte ranges like a plain log. A worker reads the members that start in the first half of
// the bundle (by the sizes in their tar headers); this thread walks the same bundle, inflating
// those members without parsing them, and reads the rest. Inflating the first half twice costs
// about half a `zcat` of CPU on libuv's pool (0.45 s for 256 MiB); handing the members from one
// walker to the other instead made the walker wait for the worker to parse them (the walker may
// not inflate far ahead), so it reached its own half only when the worker was done: 10.4 s
// against 9.1 s on one thread (400 pods, 256 MiB, load 5).
//
// Each member is read by one thread, whole, in order, with the same limits and errors as one
// reader: the worker gives those of its members (and of the bundle while it reads), this thread
// those of the rest. The run's gzip totals count each member once: this thread counts only from
// the first member it reads.

import { InputError } from '../core/errors.js';
import type { InputStats } from '../core/types.js';
import { openSource, type RunCounting } from '../input/open.js';
import { RuleEngine, type EngineModules } from './engine.js';
import { serializeError, type SerializedError, type TaskResult } from './messages.js';
import type { EntryCallbacks } from './pipeline.js';
import type { ParallelOptions, Unit } from './plan.js';
import type { TaskPool } from './pool.js';
import { readNoting, type ReadOptions } from './read.js';
import { collectEvery, youngCollector } from '../util/gc.js';

/** Bytes inflated and thrown away between two scavenges (see util/gc.ts). */
const SKIPPED_BYTES_PER_COLLECTION = 8 << 20;

/**
 * The worker's result for the first members, then this thread's for the rest, with the errors
 * readSource gives for the whole bundle. Rejects when the worker fails (the caller then reads
 * the bundle again on this thread).
 */
export async function readArchive(
  unit: Unit & { type: 'archive' },
  pool: TaskPool,
  modules: EngineModules,
  options: ReadOptions & ParallelOptions,
): Promise<TaskResult[]> {
  const head = pool.run({ type: 'sources', sources: [unit.source], until: unit.headBytes }, true);
  // Awaited once this thread is done; a worker that dies before then must not end the process.
  head.catch(() => {});
  const local = RuleEngine.of(modules);
  const inputs: InputStats[] = [];
  const errors: InputError[] = [];
  const callbacks: EntryCallbacks = { record: (r) => local.emit(r) };
  if (options.progress) callbacks.bytes = (n, lines) => options.progress!.bytes(n, lines);
  const run: RunCounting = { counts: false };
  let stored = 0;
  let archiveError: InputError | null = null;
  const noteSkipped = collectEvery(SKIPPED_BYTES_PER_COLLECTION, youngCollector());
  try {
    for await (const entry of openSource(unit.source, undefined, run)) {
      if (!run.counts && stored < unit.headBytes) {
        stored += entry.stored ?? 0;
        // The worker reads this member; an error naming the bundle (not the member) stops the bundle there, and the worker reports it.
        const error = await skip(entry.stream, noteSkipped);
        if (error && error.path !== entry.path) break;
        continue;
      }
      run.counts = true;
      const error = await readNoting(entry, callbacks, options, inputs, errors);
      if (error && error.path !== entry.path) break;
    }
  } catch (err) {
    // Before this thread's first member the bundle broke where the worker was reading: the worker reports it.
    if (run.counts) archiveError = err instanceof InputError ? err : new InputError(unit.source.path, err instanceof Error ? err.message : String(err));
  }
  const first = await head;
  const rest: TaskResult = { states: local.snapshot(), failures: local.failedRules(), inputs, errors: errors.map(serializeError), builtHere: true };
  if (archiveError) joinArchiveError(archiveError, first.errors, rest.errors);
  options.onArchive?.({ path: unit.source.path, workerMembers: first.inputs.length, mainMembers: inputs.length });
  return [first, rest];
}

/** Inflates a member to its end without reading it; the InputError that ended it early, if any. */
async function skip(stream: AsyncIterable<Buffer>, noteSkipped: (bytes: number) => void): Promise<InputError | null> {
  try {
    for await (const chunk of stream) noteSkipped(chunk.length);
    return null;
  } catch (err) {
    return err instanceof InputError ? err : null;
  }
}

/**
 * As readSource: a member that broke mid-read and the archive breaking are one failure, reported
 * once at the member and line. Every error of the bundle before the break names its member (one
 * naming the bundle stops the walk before the archive can fail), so the last one is that member's.
 */
function joinArchiveError(archiveError: InputError, first: SerializedError[], rest: SerializedError[]): void {
  const errors = rest.length > 0 ? rest : first;
  const last = errors[errors.length - 1];
  if (!last) {
    rest.push(serializeError(archiveError));
    return;
  }
  errors[errors.length - 1] = serializeError(new InputError(last.path, archiveError.message, last.line));
}
