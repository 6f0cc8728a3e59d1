// What `linkerd-doctor analyze` does once its flags are parsed: run the analysis, write each
// requested format, print notices on stderr, and return the exit code.

import { InputError, UsageError } from '../core/errors.js';
import type { Severity } from '../core/types.js';
import { analyzeInputs, type AnalyzeOptions } from '../engine/analyze.js';
import type { ConfiguredRule } from '../engine/engine.js';
import { exitCodeFor, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';
import { FORMATTERS, type FormatName } from '../report/formats/index.js';
import { buildReport, visibleFindings, type FailOn } from '../report/report.js';
import { RULES } from '../rules/index.js';
import { writeFileAtomic, writeStdout } from './output.js';
import { resolvePathArgs } from './paths.js';
import { createProgress } from './progress.js';

export interface AnalyzeFlags {
  format?: string[];
  output?: string[];
  'fail-on': string;
  'min-severity': string;
  progress: boolean;
  quiet: boolean;
  color?: boolean;
  jobs?: number;
}

export interface OutputTarget {
  format: FormatName;
  file: string | null;
}

/** Pairs `--format` and `--output` in order; a format without a file goes to stdout (at most one). */
export function outputTargets(formats: readonly string[] = [], outputs: readonly string[] = []): OutputTarget[] {
  const names = (formats.length > 0 ? formats : ['text']) as FormatName[];
  if (outputs.length > names.length) throw new UsageError(`${outputs.length} --output files but only ${names.length} --format; give a --format for each --output`);
  const targets = names.map((format, i) => ({ format, file: outputs[i] ?? null }));
  if (targets.filter((t) => t.file === null).length > 1) throw new UsageError('more than one --format would go to stdout; pair each extra --format with an --output FILE');
  return targets;
}

export function defaultRules(): ConfiguredRule[] {
  return RULES.map((rule) => ({ rule, options: { ...rule.meta.defaultOptions } }));
}

export async function runAnalyze(argv: string[], flags: AnalyzeFlags): Promise<number> {
  try {
    const paths = resolvePathArgs(argv, process.stdin.isTTY);
    const targets = outputTargets(flags.format, flags.output);
    const failOn = flags['fail-on'] as FailOn;
    const minSeverity = flags['min-severity'] as Severity;
    const options: AnalyzeOptions = { progress: createProgress(flags.progress && !flags.quiet) };
    if (flags.jobs !== undefined) options.jobs = flags.jobs;
    const result = await analyzeInputs(paths, defaultRules(), options);
    const report = buildReport(result, failOn);

    for (const e of result.errors) process.stderr.write(`linkerd-doctor: ${e.toLine()}\n`);
    if (!flags.quiet) {
      for (const i of result.inputs) {
        if (i.unparsed > 0) process.stderr.write(`linkerd-doctor: notice: ${i.path}: ${i.unparsed} of ${i.lines} lines did not parse as ${i.kind}\n`);
      }
      for (const f of result.ruleFailures) process.stderr.write(`linkerd-doctor: rule ${f.ruleId} failed: ${f.message}\n`);
    }

    const findings = visibleFindings(report, minSeverity);
    for (const target of targets) {
      const color = target.file === null && (flags.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR));
      const text = FORMATTERS[target.format](report, { color, findings, failOn });
      if (target.file) await writeFileAtomic(target.file, text);
      else await writeStdout(text);
    }
    return exitCodeFor(report);
  } catch (err) {
    if (err instanceof UsageError) process.stderr.write(`linkerd-doctor: ${err.message}\n`);
    else if (err instanceof InputError) process.stderr.write(`linkerd-doctor: ${err.toLine()}\n`);
    else process.stderr.write(`linkerd-doctor: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
}
