// Parallel analysis: consecutive input files are read in batches by worker threads (and this
// one), one large plain proxy log is cut into byte ranges at line boundaries, one per thread
// (plan.ts), and a large tar bundle is shared by a worker and this thread (archive.ts). Each task runs the parser and the rules into rule states of its own; this thread
// merges them in input order (RuleModule.merge), so the result equals the sequential run's.
//
// A range's parser starts from a state it cannot know for sure (restart count, last uptime, the
// wall-time anchor learned from earlier lines), so each worker assumes one from the lines just
// before its range and reports it. The main thread checks that assumption against the state the
// previous range really ended with; a range that assumed wrong is read again from the right
// state. Line numbers are exact: a range's worker counts the newlines before it.

import { InputError } from '../core/errors.js';
import type { InputStats } from '../core/types.js';
import type { Discovery, InputSource } from '../input/discover.js';
import { fileRange } from '../input/file-range.js';
import type { ParserOptions, ParserState } from '../parsers/parser.js';
import { ParseContext } from '../parsers/context.js';
import { RuleEngine, type EngineModules } from './engine.js';
import { deserializeError, serializeError, unpackStates, type TaskResult, type WorkerMessage, type WorkerSetup, type WorkerTask } from './messages.js';
import { readEntry, type EntryCallbacks } from './pipeline.js';
import { planUnits, type ParallelOptions, type ParallelPlan, type Unit } from './plan.js';
import { TaskPool } from './pool.js';
import { readArchive } from './archive.js';
import { knownTotalBytes, readSources, reportUnrecognised, type ReadOptions, type ReadResult } from './read.js';

export { cappedJobs, parallelPlanFor, resolveJobs, splitPoints, type ParallelOptions, type ParallelPlan } from './plan.js';

export async function analyzeInParallel(
  discovery: Discovery,
  plan: ParallelPlan,
  engine: RuleEngine,
  options: ReadOptions & ParallelOptions,
): Promise<ReadResult> {
  const inputs: InputStats[] = [];
  const errors = [...discovery.errors];
  const notices: InputError[] = [];
  const progress = options.progress;
  progress?.start(knownTotalBytes(discovery, plan.readBytes));
  const parserOptions: ParserOptions = {};
  if (options.strict) parserOptions.strict = options.strict;
  if (options.interest) parserOptions.interest = options.interest;
  const modules = engine.modules();
  const post = (m: WorkerMessage) => {
    if (m.type === 'progress') progress?.bytes(m.bytes, m.lines);
    else if (m.type === 'file') progress?.file(m.path);
  };
  const setup: WorkerSetup = { rules: plan.rules, collectors: plan.collectors, catalog: plan.catalog, parser: parserOptions };
  if (plan.decompressionLedger) setup.decompressionLedger = plan.decompressionLedger;
  const pool = new TaskPool(plan.jobs, setup, modules, post, options.context ?? new ParseContext());
  try {
    const units = await planUnits(discovery.sources, plan);
    // Start every worker task now (the pool queues them); merge strictly in input order below.
    // A failed task yields null at once, so a later unit's failure is never an unhandled rejection.
    const failures: string[] = [];
    const started: (Promise<TaskResult[] | null> | null)[] = units.map(
      (unit, index) =>
        startUnit(unit, pool, modules, options)?.catch((err: unknown) => {
          failures[index] = err instanceof Error ? err.message : String(err);
          return null;
        }) ?? null,
    );
    pool.drain();
    for (let i = 0; i < units.length; i++) {
      const unit = units[i]!;
      if (unit.type === 'main') {
        mergeInto(engine, await readOnMainThread([unit.source], modules, options), inputs, errors);
        continue;
      }
      const results = await started[i]!;
      // Once merged, a task's rule states are garbage: holding every one of them until the end cost hundreds of MiB on 400-file bundles.
      started[i] = null;
      if (results === null) {
        // A worker died (not an input problem): read these sources here instead, and say so.
        const first = unit.type === 'batch' ? unit.sources[0]!.path : unit.source.path;
        notices.push(new InputError(first, `a worker thread failed (${failures[i] ?? 'no reason given'}); read on the main thread instead`));
        mergeInto(engine, await readOnMainThread(unit.type === 'batch' ? unit.sources : [unit.source], modules, options, false), inputs, errors);
      } else if (unit.type === 'batch' || unit.type === 'archive') {
        for (const result of results) mergeInto(engine, result, inputs, errors);
      } else {
        await mergeRanges(engine, unit, results, modules, options, inputs, errors);
      }
    }
  } finally {
    await pool.close();
    progress?.stop();
  }
  reportUnrecognised(discovery, inputs, errors);
  return { inputs, errors, notices: [...discovery.notices, ...notices] };
}

/** Queues a unit's tasks; resolves to their results in input order (a batch has one, a bundle two, a split file one per range). */
function startUnit(unit: Unit, pool: TaskPool, modules: EngineModules, options: ReadOptions & ParallelOptions): Promise<TaskResult[]> | null {
  if (unit.type === 'main') return null;
  if (unit.type === 'batch') return pool.run({ type: 'sources', sources: unit.sources }).then((result) => [result]);
  // Started now, not when the merge reaches it: this thread walks the bundle while earlier units run.
  if (unit.type === 'archive') return readArchive(unit, pool, modules, options);
  // Submitted last range first, so that this thread, which is free at once, takes the last range:
  // before reading it must count the lines in front of it and learn the parser state there, which
  // takes about as long as a new worker needs to start and take the first range, which needs neither.
  const results: Promise<TaskResult>[] = [];
  for (let k = unit.bounds.length - 2; k >= 0; k--) {
    const task: WorkerTask = { type: 'range', path: unit.source.path, start: unit.bounds[k]!, end: unit.bounds[k + 1]!, kind: unit.kind };
    if (k === 0) task.linesBefore = 0;
    results[k] = pool.run(task);
  }
  return Promise.all(results);
}

function mergeInto(engine: RuleEngine, result: TaskResult, inputs: InputStats[], errors: InputError[]): void {
  // Nothing merged yet: this thread's own states become the engine's (a copy from a worker may have lost its prototypes).
  if (inputs.length === 0 && result.builtHere) engine.adopt(unpackStates(result.states));
  else engine.absorb(unpackStates(result.states));
  engine.absorbFailures(result.failures);
  inputs.push(...result.inputs);
  errors.push(...result.errors.map(deserializeError));
}

/** Whether a range's assumed start state is the state its predecessor really ended with. */
export function sameParserState(a: ParserState | undefined, b: ParserState | undefined): boolean {
  if (!a || !b) return a === b;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

async function mergeRanges(
  engine: RuleEngine,
  unit: Unit & { type: 'ranges' },
  results: readonly TaskResult[],
  modules: EngineModules,
  options: ReadOptions & ParallelOptions,
  inputs: InputStats[],
  errors: InputError[],
): Promise<void> {
  const verified: TaskResult[] = [];
  for (let k = 0; k < results.length; k++) {
    const [start, end] = [unit.bounds[k]!, unit.bounds[k + 1]!];
    let result = results[k]!;
    const previous = verified[k - 1];
    if (previous && (previous.errors.length > 0 || previous.endState?.partialLine === true)) {
      // The ranges do not join cleanly (a read error, a CRI partial line across the cut): read the whole file here.
      mergeInto(engine, await readOnMainThread([unit.source], modules, options, false), inputs, errors);
      return;
    }
    const reread = previous !== undefined && !sameParserState(result.assumedState, previous.endState);
    if (reread) result = await readRangeOnMainThread(unit, start, end, result.linesBefore!, previous.endState!, modules, options);
    options.onRange?.({ path: unit.source.path, start, end, reread });
    verified.push(result);
  }
  const stats: InputStats = { ...verified[0]!.inputs[0]!, bytes: 0, records: 0, unparsed: 0, lines: 0 };
  for (const r of verified) {
    engine.absorb(unpackStates(r.states));
    engine.absorbFailures(r.failures);
    const part = r.inputs[0]!;
    stats.bytes += part.bytes;
    stats.records += part.records;
    stats.unparsed += part.unparsed;
    stats.lines += part.lines;
    stats.firstUnreadObject ??= part.firstUnreadObject;
    errors.push(...r.errors.map(deserializeError));
  }
  inputs.push(stats);
}

/** Re-reads one range from the state its predecessor ended with (the assumed start state was wrong). */
async function readRangeOnMainThread(
  unit: Unit & { type: 'ranges' },
  start: number,
  end: number,
  linesBefore: number,
  parserState: ParserState,
  modules: EngineModules,
  options: ReadOptions,
): Promise<TaskResult> {
  const local = RuleEngine.of(modules);
  const entry = { path: unit.source.path, stream: fileRange(unit.source.path, start, end), size: end - start };
  const result = await readEntry(entry, { record: (r) => local.emit(r) }, options, unit.kind, { linesBefore, kind: unit.kind, parserState });
  const out: TaskResult = {
    states: local.snapshot(),
    failures: local.failedRules(),
    inputs: [result.stats],
    errors: result.error ? [serializeError(result.error)] : [],
    linesBefore,
  };
  if (result.endState) out.endState = result.endState;
  return out;
}

async function readOnMainThread(sources: readonly InputSource[], modules: EngineModules, options: ReadOptions, withProgress = true): Promise<TaskResult> {
  const local = RuleEngine.of(modules);
  const inputs: InputStats[] = [];
  const errors: InputError[] = [];
  const callbacks: EntryCallbacks = { record: (r) => local.emit(r) };
  if (withProgress && options.progress) callbacks.bytes = (n, lines) => options.progress!.bytes(n, lines);
  await readSources(sources, callbacks, options, inputs, errors);
  return { states: local.snapshot(), failures: local.failedRules(), inputs, errors: errors.map(serializeError), builtHere: true };
}
