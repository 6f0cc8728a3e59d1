// Runs rules over in-memory inputs through the real pipeline (sniffing, parsing, engine), the way
// ESLint's RuleTester runs a rule over source text.

import { Readable } from 'node:stream';
import type { AnyRule, Finding, InputKind, InputStats } from '../../src/core/types.js';
import { RuleEngine } from '../../src/engine/engine.js';
import { readEntry } from '../../src/engine/pipeline.js';

export interface TestInput {
  /** Display path; pod/namespace are derived from it as for real files. */
  path: string;
  content: string | Buffer;
  kind?: InputKind;
}

export interface RuleRun {
  findings: Finding[];
  inputs: InputStats[];
  skipped: boolean;
}

export async function runRule(rule: AnyRule, inputs: TestInput[], options: object = {}): Promise<RuleRun> {
  const run = await runOnce(rule, inputs, options, false);
  // analyze skims the lines no rule declared interest in; with only this rule's interest (the
  // narrowest a real run can have) the findings must not change, or lineInterest hides lines the
  // rule reads.
  if (rule.meta.lineInterest) {
    const skimmed = await runOnce(rule, inputs, options, true);
    if (JSON.stringify(skimmed.findings) !== JSON.stringify(run.findings)) {
      throw new Error(`${rule.meta.id}: findings differ when lines outside its lineInterest are skimmed; lineInterest misses lines the rule reads`);
    }
  }
  return run;
}

async function runOnce(rule: AnyRule, inputs: TestInput[], options: object, skim: boolean): Promise<RuleRun> {
  const engine = new RuleEngine([{ rule, options: { ...rule.meta.defaultOptions, ...options } }]);
  const parserOptions = skim ? { interest: engine.lineInterest() } : {};
  const stats: InputStats[] = [];
  for (const input of inputs) {
    const stream = Readable.from([typeof input.content === 'string' ? Buffer.from(input.content) : input.content]);
    const result = await readEntry({ path: input.path, stream, size: null }, { record: (r) => engine.emit(r) }, parserOptions, input.kind);
    if (result.error) throw result.error;
    stats.push(result.stats);
  }
  const result = engine.finish(stats);
  if (result.ruleFailures.length > 0) throw new Error(`rule failed: ${result.ruleFailures.map((f) => f.message).join('; ')}`);
  return { findings: result.findings, inputs: stats, skipped: result.skippedRules.length > 0 };
}

/** The inputs split between two engines whose states are cloned and merged, as parallel workers do. */
export async function runRuleMerged(rule: AnyRule, inputs: TestInput[], options: object = {}): Promise<Finding[]> {
  const configured = [{ rule, options: { ...rule.meta.defaultOptions, ...options } }];
  const half = Math.ceil(inputs.length / 2);
  const engines = [new RuleEngine(configured), new RuleEngine(configured)];
  const stats: InputStats[] = [];
  for (const [i, input] of inputs.entries()) {
    const engine = engines[i < half ? 0 : 1]!;
    const stream = Readable.from([typeof input.content === 'string' ? Buffer.from(input.content) : input.content]);
    const result = await readEntry({ path: input.path, stream, size: null }, { record: (r) => engine.emit(r) }, {}, input.kind);
    stats.push(result.stats);
  }
  engines[0]!.absorb(structuredClone(engines[1]!.snapshot()));
  const result = engines[0]!.finish(stats);
  if (result.ruleFailures.length > 0) throw new Error(`rule failed: ${result.ruleFailures.map((f) => f.message).join('; ')}`);
  return result.findings;
}
