// The whole offline run: discover → open → read entries → rules → result. Commands stay thin and
// call this; tests call it directly.

import type { InputStats, LdRecord } from '../core/types.js';
import { annotateFixStatus } from '../incident/fix-status.js';
import { VERSION_COLLECTOR_ID, proxyVersionsOf, versionCollector, type ProxyVersions, type VersionState } from '../incident/versions.js';
import { discoverInputs } from '../input/discover.js';
import { startDecompressionLedger } from '../input/open.js';
import { RuleEngine, type ConfiguredRule, type EngineResult } from './engine.js';
import { analyzeInParallel, parallelPlanFor, type ParallelOptions } from './parallel.js';
import { withRunCaches } from '../util/run-caches.js';
import { readDiscovered, type ReadOptions, type ReadResult } from './read.js';

export type { ReadOptions, ReadProgress, ReadResult } from './read.js';

/** Streams every record of every input to `onRecord`, in input order. */
export async function readInputs(args: readonly string[], onRecord: (record: LdRecord) => void, options: ReadOptions = {}): Promise<ReadResult> {
  const discovery = await discoverInputs(args);
  startDecompressionLedger();
  return withRunCaches(() => readDiscovered(discovery, onRecord, options));
}

export interface AnalysisResult extends EngineResult, ReadResult {
  /** Proxy version per pod, from build-info metrics and release banners. */
  versions: ProxyVersions;
}

export interface AnalyzeOptions extends ReadOptions, ParallelOptions {}

/**
 * Reads the inputs and runs the rules. With more than one job and enough input, inputs (and byte
 * ranges of a large plain log) are read by worker threads and their rule states merged in input
 * order; the result is the same as the sequential run's.
 */
export async function analyzeInputs(args: readonly string[], rules: readonly ConfiguredRule[], options: AnalyzeOptions = {}): Promise<AnalysisResult> {
  // The version collector rides along as the last "rule" so it sees every record in the same pass.
  const withVersions: ConfiguredRule[] = [...rules, { rule: versionCollector, options: {} }];
  const engine = new RuleEngine(withVersions);
  const readOptions: AnalyzeOptions = { ...options, interest: engine.lineInterest() };
  const discovery = await discoverInputs(args);
  const ledger = startDecompressionLedger();
  const plan = await parallelPlanFor(discovery, withVersions, readOptions, ledger);
  return withRunCaches(async () => {
    const read = plan ? await analyzeInParallel(discovery, plan, engine, readOptions) : await readDiscovered(discovery, (r) => engine.emit(r), readOptions);
    return { ...read, ...finishWithVersions(engine, read.inputs) };
  });
}

/** Finishes an engine built with the version collector last: findings get their fix status. */
export function finishWithVersions(engine: RuleEngine, inputs: readonly InputStats[]): EngineResult & { versions: ProxyVersions } {
  const result = engine.finish(inputs);
  const states = engine.snapshot();
  const versions = proxyVersionsOf(states[states.length - 1] as VersionState | undefined);
  return {
    findings: annotateFixStatus(result.findings, versions),
    skippedRules: result.skippedRules.filter((s) => s.ruleId !== VERSION_COLLECTOR_ID),
    ruleFailures: result.ruleFailures,
    versions,
  };
}
