// The whole offline read: discover → open → read entries → rules and collectors. The engine runs
// what it is given; src/analysis/analyze.ts gives it the rules and the version collector and
// finishes the result (fold, fix status). Tests call either.

import type { InputStats, LdRecord } from '../core/types.js';
import { discoverInputs } from '../input/discover.js';
import { startDecompressionLedger } from '../input/open.js';
import { RuleEngine, type EngineModules } from './engine.js';
import { analyzeInParallel, parallelPlanFor, type ParallelOptions } from './parallel.js';
import { withRunCaches } from '../util/run-caches.js';
import { settleHeap } from '../util/gc.js';
import { ParseContext } from '../parsers/context.js';
import { readDiscovered, type ReadOptions, type ReadResult } from './read.js';

export type { ReadOptions, ReadProgress, ReadResult } from './read.js';

/** Streams every record of every input to `onRecord`, in input order. */
export async function readInputs(args: readonly string[], onRecord: (record: LdRecord) => void, options: ReadOptions = {}): Promise<ReadResult> {
  const discovery = await discoverInputs(args);
  startDecompressionLedger();
  return withRunCaches(() => readDiscovered(discovery, onRecord, { ...options, context: new ParseContext() }));
}

export interface AnalyzeOptions extends ReadOptions, ParallelOptions {}

/**
 * Reads the inputs into the given rules and collectors, then `finish` turns the engine's states
 * into the caller's result (still inside the run, so its caches are the run's). With more than one
 * job, a worker catalog and enough input, inputs (and byte ranges of a large plain log) are read by
 * worker threads and their states merged in input order; the result is the same as the sequential run's.
 */
export async function runEngine<T extends object>(
  args: readonly string[],
  modules: EngineModules,
  options: AnalyzeOptions,
  finish: (engine: RuleEngine, inputs: readonly InputStats[]) => T,
): Promise<ReadResult & T> {
  const engine = RuleEngine.of(modules);
  const readOptions: AnalyzeOptions = { ...options, interest: engine.lineInterest(), context: new ParseContext() };
  const discovery = await discoverInputs(args);
  const ledger = startDecompressionLedger();
  const plan = await parallelPlanFor(discovery, modules, readOptions, ledger);
  return withRunCaches(async () => {
    const read = plan ? await analyzeInParallel(discovery, plan, engine, readOptions) : await readDiscovered(discovery, (r) => engine.emit(r), readOptions);
    settleHeap();
    return { ...read, ...finish(engine, read.inputs) };
  });
}
