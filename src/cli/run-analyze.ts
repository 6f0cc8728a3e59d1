// What `linkerd-doctor analyze` does once its flags are parsed: load the config, run the analysis,
// apply suppressions and the baseline, write each requested format, print notices on stderr, and
// return the exit code (decided in report/exit-code.ts, identical for every format).

import { loadConfig, parseSuppressFlag, type LinkerdDoctorConfig } from '../config/config.js';
import { describeSystemError, InputError, UsageError } from '../core/errors.js';
import { SEVERITIES, type InputStats, type Severity } from '../core/types.js';
import { analyzeInputs, type AnalyzeOptions } from '../analysis/analyze.js';
import type { ConfiguredRule } from '../engine/engine.js';
import { cappedJobs } from '../engine/parallel.js';
import { createBaseline, DEFAULT_BASELINE_TOLERANCE_PERCENT, readBaseline, serializeBaseline } from '../report/baseline.js';
import { exitCodeFor, EXIT_USAGE_OR_INPUT } from '../report/exit-code.js';
import { FORMAT_NAMES, FORMATTERS, type FormatName } from '../report/formats/index.js';
import { redactReport } from '../report/redact.js';
import { buildReport, NOTHING_CHECKED_PATH, visibleFindings, type GateOptions, type Report } from '../report/report.js';
import type { FailOn } from '../report/severity.js';
import { RULES } from '../rules/index.js';
import { decompressionLimits } from '../input/open.js';
import { assertNotAnInput, duplicateOutputWarnings, finishDespiteClosedStdout, writeFileAtomic, writeStdout } from './output.js';
import { resolvePathArgs } from './paths.js';
import { type OutputTarget } from './output-targets.js';
import { createProgress } from './progress.js';
import { settleHeap } from '../util/gc.js';
import { terminalSafe } from '../util/terminal-safe.js';
import { terminalWidth, useColor } from './terminal.js';

export type { OutputTarget };

export interface AnalyzeFlags {
  format?: string[];
  output?: string[];
  /** Unset = the config's failOn, else `error`. */
  'fail-on'?: string;
  /** Unset = on when the environment has CI=true (GitHub Actions, GitLab, CircleCI… set it). */
  'fail-on-unread'?: boolean;
  'min-severity'?: string;
  config?: string;
  suppress?: string[];
  baseline?: string;
  'write-baseline'?: string;
  'baseline-tolerance'?: number;
  progress: boolean;
  quiet: boolean;
  color?: boolean;
  jobs?: number;
  /** Where each report goes, read from the command line in order (cli/output-targets.ts); else format[i] pairs with output[i]. */
  targets?: OutputTarget[];
  verbose?: boolean;
  summary?: boolean;
  'max-findings'?: number;
  fold?: boolean;
  redact?: boolean;
}

/** Pairs `--format` and `--output` in order; a format without a file (or with `-`) goes to stdout (at most one). */
export function outputTargets(formats: readonly string[] = [], outputs: readonly string[] = []): OutputTarget[] {
  const names = formats.length > 0 ? formats : ['text'];
  for (const n of names)
    if (!(FORMAT_NAMES as readonly string[]).includes(n)) throw new UsageError(`unknown --format ${n} (known: ${FORMAT_NAMES.join(', ')})`);
  if (outputs.length > names.length)
    throw new UsageError(`${outputs.length} --output files but only ${names.length} --format; give a --format for each --output`);
  const targets = (names as FormatName[]).map((format, i) => ({ format, file: outputs[i] === undefined || outputs[i] === '-' ? null : outputs[i]! }));
  if (targets.filter((t) => t.file === null).length > 1)
    throw new UsageError('more than one --format would go to stdout; pair each extra --format with an --output FILE');
  return targets;
}

export function defaultRules(): ConfiguredRule[] {
  return RULES.map((rule) => ({ rule, options: { ...rule.meta.defaultOptions } }));
}

/** Flags win over the config file, the config over the built-in defaults. */
export function effectiveThresholds(
  flags: Pick<AnalyzeFlags, 'fail-on' | 'min-severity' | 'baseline-tolerance'>,
  config: LinkerdDoctorConfig,
): { failOn: FailOn; minSeverity: Severity; tolerancePercent: number } {
  const failOn = (flags['fail-on'] ?? config.failOn ?? 'error') as FailOn;
  const minSeverity = (flags['min-severity'] ?? config.minSeverity ?? 'info') as Severity;
  if (![...SEVERITIES, 'none'].includes(failOn)) throw new UsageError(`--fail-on ${failOn}: must be one of ${[...SEVERITIES, 'none'].join(', ')}`);
  if (!(SEVERITIES as readonly string[]).includes(minSeverity)) throw new UsageError(`--min-severity ${minSeverity}: must be one of ${SEVERITIES.join(', ')}`);
  const tolerancePercent = flags['baseline-tolerance'] ?? config.baselineTolerance ?? DEFAULT_BASELINE_TOLERANCE_PERCENT;
  if (!Number.isFinite(tolerancePercent) || tolerancePercent < 0) throw new UsageError(`--baseline-tolerance ${tolerancePercent}: must be a percentage ≥ 0`);
  return { failOn, minSeverity, tolerancePercent };
}

export async function runAnalyze(argv: string[], flags: AnalyzeFlags): Promise<number> {
  // `analyze … | head` under pipefail: the verdict, not the closed pipe, sets the exit code.
  finishDespiteClosedStdout({ note: !flags.quiet });
  try {
    const targets = flags.targets ?? outputTargets(flags.format, flags.output);
    const config = await loadConfig(flags.config);
    // A config changes the verdict; say which one, whether it was found or given.
    if (config.source && !flags.quiet)
      process.stderr.write(
        `linkerd-doctor: notice: using config ${config.source}${flags.config ? '' : ' (found in the working directory; --config FILE to choose another)'}\n`,
      );
    const { failOn, minSeverity, tolerancePercent } = effectiveThresholds(flags, config);
    const suppressions = [...config.suppress, ...(flags.suppress ?? []).map((s) => parseSuppressFlag(s))];
    const previous = flags.baseline ? await readBaseline(flags.baseline) : undefined;
    const paths = resolvePathArgs(argv, process.stdin.isTTY);
    // A bad limit is one usage error now, not one error per compressed input (or none without any).
    decompressionLimits();
    const outputFiles = [
      ...targets.flatMap((t) => (t.file ? [{ flag: '--output', file: t.file }] : [])),
      ...(flags['write-baseline'] ? [{ flag: '--write-baseline', file: flags['write-baseline'] }] : []),
    ];
    for (const warning of duplicateOutputWarnings(outputFiles)) process.stderr.write(`linkerd-doctor: ${warning}\n`);
    assertNotAnInput(outputFiles, paths);

    const options: AnalyzeOptions = { progress: createProgress(flags.progress && !flags.quiet) };
    const jobs = cappedJobs(flags.jobs);
    options.jobs = jobs.jobs;
    if (jobs.notice && !flags.quiet) process.stderr.write(`linkerd-doctor: notice: ${jobs.notice}\n`);
    const result = await analyzeInputs(paths, config.rules, options);
    assertNotAnInput(
      outputFiles,
      result.inputs.map((i) => i.path),
    );
    const gate: GateOptions = {
      suppressions,
      ruleIds: config.rules.map((c) => c.rule.meta.id),
      disabledRules: config.disabledRules,
      fold: flags.fold !== false,
      failOnUnread: flags['fail-on-unread'] ?? process.env.CI === 'true',
    };
    if (previous) gate.baseline = { file: flags.baseline!, data: previous, tolerancePercent };
    let report = buildReport(result, failOn, gate);

    if (flags['write-baseline']) {
      if (report.errors.length > 0) {
        process.stderr.write(
          `linkerd-doctor: not writing baseline ${flags['write-baseline']}: the run had ${report.errors.length} error(s), so its findings may be incomplete\n`,
        );
      } else {
        const written = createBaseline(report.findings);
        await writeFileAtomic(flags['write-baseline'], serializeBaseline(written));
        if (!flags.quiet) process.stderr.write(`linkerd-doctor: wrote baseline ${flags['write-baseline']} with ${written.findings.length} finding(s)\n`);
        // Without --baseline, the baseline just written is the one in effect: recording the
        // current state accepts it, as ESLint's --suppress-all does.
        if (!previous) report = buildReport(result, failOn, { ...gate, baseline: { file: flags['write-baseline'], data: written, tolerancePercent } });
      }
    }

    for (const e of result.errors) process.stderr.write(`linkerd-doctor: ${e.toLine()}\n`);
    for (const e of report.errors) if (e.path === NOTHING_CHECKED_PATH) process.stderr.write(`linkerd-doctor: ${e.message}\n`);
    if (!flags.quiet) {
      for (const n of result.notices) process.stderr.write(`linkerd-doctor: notice: ${n.toLine()}\n`);
      writeNotices(report, result.inputs);
    }

    // After the baseline is written (it stays the user's own), before any format is rendered.
    if (flags.redact) report = redactReport(report);
    // What built the report is garbage now: rendering it (for 4,000 inputs, megabytes of text)
    // starts on a collected heap (util/gc.ts).
    settleHeap();
    const visible = visibleFindings(report, minSeverity);
    const findings = flags['max-findings'] !== undefined ? visible.slice(0, flags['max-findings']) : visible;
    let unwritten = 0;
    for (const target of targets) {
      const color = target.file === null && useColor(flags.color, process.stdout);
      const layout = {
        width: target.file === null ? terminalWidth(process.stdout) : terminalWidth(undefined),
        verbose: flags.verbose === true,
        summaryOnly: flags.summary === true,
        notShown: visible.length - findings.length,
      };
      // One unwritable file (or a formatter failing on odd data) must not cost the other reports
      // (kube-linter's multi-output lesson).
      try {
        const text = FORMATTERS[target.format](report, { color, findings, failOn, minSeverity, cwd: process.cwd(), ...layout });
        if (!target.file) {
          await writeStdout(text);
          continue;
        }
        await writeFileAtomic(target.file, text);
      } catch (err) {
        unwritten++;
        process.stderr.write(`linkerd-doctor: cannot write ${target.format} report ${target.file ?? 'to stdout'}: ${describeSystemError(err)}\n`);
      }
    }
    return unwritten > 0 ? EXIT_USAGE_OR_INPUT : exitCodeFor(report);
  } catch (err) {
    if (err instanceof UsageError) process.stderr.write(`linkerd-doctor: ${err.message}\n`);
    else if (err instanceof InputError) process.stderr.write(`linkerd-doctor: ${err.toLine()}\n`);
    else process.stderr.write(`linkerd-doctor: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE_OR_INPUT;
  }
}

function writeNotices(report: Report, inputs: readonly InputStats[]): void {
  const notice = (text: string) => process.stderr.write(`linkerd-doctor: notice: ${text}\n`);
  for (const i of inputs) {
    // A whole object not read is named (where, and why), so the user can mend it and read it again.
    const object = i.firstUnreadObject ? `; ${terminalSafe(i.firstUnreadObject.reason, true)}` : '';
    if (i.unparsed > 0) notice(`${i.path}: ${i.unparsed} of ${i.lines} lines did not parse as ${i.kind}${object}`);
  }
  for (const e of report.errors)
    if (e.path.startsWith('rule:')) process.stderr.write(`linkerd-doctor: rule ${e.path.slice(5)} failed: ${e.message.replace(/^rule failed: /, '')}\n`);
  for (const s of report.suppressions) {
    if (s.matched === 0)
      notice(
        `unused suppression ${s.rule}${s.subject ? `=${s.subject}` : ''} (${s.source === 'flag' ? '--suppress' : 'config'}): it matched no finding; remove it`,
      );
  }
  if (report.summary.suppressed > 0) notice(`${report.summary.suppressed} finding(s) suppressed`);
  const b = report.baseline;
  if (b) {
    notice(`baseline ${b.file}: ${b.new} new, ${b.worse} worse, ${b.unchanged} unchanged, ${b.fixed.length} fixed, ${b.stale.length} stale`);
    for (const s of b.stale)
      notice(
        `stale baseline entry ${s.ruleId} "${s.title}" (${s.reason}); rewrite the baseline with --write-baseline once the rule runs again or drop the entry`,
      );
  }
}
