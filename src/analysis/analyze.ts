// An analysis as the commands run it: the configured rules and the proxy-version collector go to
// the engine, which runs what it is given; then the findings are folded where one cause was
// reported by several rules (report/fold.ts) and annotated with what the pods' versions fix.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InputStats } from '../core/types.js';
import type { WorkerCatalog } from '../engine/collector.js';
import { runEngine, type AnalyzeOptions } from '../engine/analyze.js';
import type { ConfiguredRule, EngineResult, RuleEngine } from '../engine/engine.js';
import type { ReadResult } from '../engine/read.js';
import { annotateFixStatus } from '../incident/fix-status.js';
import { versionCollector, type ProxyVersions } from '../incident/versions.js';
import { foldCoveredFindings } from '../report/fold.js';
import { resolveModule } from './catalog.js';

export type { AnalyzeOptions } from '../engine/analyze.js';

export interface AnalysisResult extends EngineResult, ReadResult {
  /** Proxy version per pod, from build-info metrics and release banners. */
  versions: ProxyVersions;
}

/**
 * The catalog module beside this one: the built .js, or under tsx (tests) the .ts source. Named
 * through its folder, not `./`: the release build (scripts/bundle.js) moves this code into a
 * chunk of its own folder, one level under dist/ as analysis/ is.
 */
const here = fileURLToPath(import.meta.url);
export const ANALYSIS_CATALOG: WorkerCatalog = {
  url: new URL(`../analysis/catalog${path.extname(here)}`, import.meta.url).href,
  resolve: resolveModule,
};

/** Reads the inputs and runs the rules with the version collector beside them (in parallel when it pays). */
export function analyzeInputs(args: readonly string[], rules: readonly ConfiguredRule[], options: AnalyzeOptions = {}): Promise<AnalysisResult> {
  return runEngine(args, { rules, collectors: [versionCollector] }, { catalog: ANALYSIS_CATALOG, ...options }, finishWithVersions);
}

/** Finishes an engine given the version collector: findings of one cause folded, then given their fix status. */
export function finishWithVersions(engine: RuleEngine, inputs: readonly InputStats[]): EngineResult & { versions: ProxyVersions } {
  const result = engine.finish(inputs);
  const versions = engine.collected(versionCollector);
  return { ...result, findings: annotateFixStatus(foldCoveredFindings(result.findings), versions), versions };
}
