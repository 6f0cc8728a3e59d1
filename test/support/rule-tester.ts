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
  const run = await runOnce(rule, inputs, options, 'every-line');
  // analyze skims the lines no rule declared interest in; with only this rule's interest (the
  // narrowest a real run can have) the findings must not change, or lineInterest hides lines the
  // rule reads.
  if (rule.meta.lineInterest) {
    const skimmed = await runOnce(rule, inputs, options, 'counted');
    if (JSON.stringify(skimmed.findings) !== JSON.stringify(run.findings)) {
      throw new Error(`${rule.meta.id}: findings differ when lines outside its lineInterest are skimmed; lineInterest misses lines the rule reads`);
    }
  }
  // A rule judging counts must find the same from counts as from the lines they stand for: every
  // line of the case three times over gives each body counts of several lines.
  if (rule.meta.countedLines) {
    const repeated = inputs.map((input) => ({ ...input, content: typeof input.content === 'string' ? thrice(input.content) : input.content }));
    const byLine = await runOnce(rule, repeated, options, 'skimmed');
    const byCount = await runOnce(rule, repeated, options, 'counted');
    if (JSON.stringify(byCount.findings) !== JSON.stringify(byLine.findings)) {
      throw new Error(
        `${rule.meta.id}: findings differ when its lines are counted; the rule must not declare countedLines, or must weigh each record by its repeats`,
      );
    }
  }
  return run;
}

function thrice(content: string): string {
  return content
    .split('\n')
    .flatMap((line) => (line === '' ? [line] : [line, line, line]))
    .join('\n');
}

/** every-line: no skimming; skimmed: lines no rule reads are skimmed; counted: and lines only counting rules read are counted. */
type ReadMode = 'every-line' | 'skimmed' | 'counted';

async function runOnce(rule: AnyRule, inputs: TestInput[], options: object, mode: ReadMode): Promise<RuleRun> {
  const engine = new RuleEngine([{ rule, options: { ...rule.meta.defaultOptions, ...options } }]);
  const parserOptions = mode === 'counted' ? engine.readerInterest() : mode === 'skimmed' ? { interest: engine.lineInterest() } : {};
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
