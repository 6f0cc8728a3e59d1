// The report model: the JSON document of `--format json` (schemaVersion 1, see
// docs/report-format.md) and the input of every other formatter.

import { TOOL_NAME, TOOL_VERSION } from '../core/docs.js';
import type { InputError } from '../core/errors.js';
import { SEVERITIES, type Finding, type InputKind, type InputStats, type RuleFailure, type Severity, type SkippedRule } from '../core/types.js';
import { correlate, type Incident } from '../incident/correlate.js';
import { versionSummary, type ProxyVersions } from '../incident/versions.js';
import { compareWithBaseline, type BaselineEntry, type BaselineFile, type BaselineVerdict, type StaleBaselineEntry } from './baseline.js';
import { isFailing, type ReportStatus } from './exit-code.js';
import { assignFingerprints, assignTitleFingerprints } from './fingerprint.js';
import { foldFindings, foldSharedCauses } from './fold.js';
import { atOrAbove, SEVERITY_RANK, type FailOn } from './severity.js';
import { applySuppressions, type SuppressionEntry, type SuppressionUse } from './suppression.js';

export interface ReportInput {
  path: string;
  kind: InputKind;
  bytes: number;
  records: number;
  unparsed: number;
  /** Physical lines read, blank ones included. */
  lines: number;
  /** `incomplete` when the input was mostly not understood (notUnderstood): its "no finding" is no pass. */
  status: InputStatus;
  pod?: string;
  namespace?: string;
  container?: string;
}

export type InputStatus = 'read' | 'incomplete';

export interface ReportError {
  path: string;
  line?: number;
  message: string;
}

/** A finding as reported: with its stable fingerprint and, under --baseline, how it compares. */
export interface ReportFinding extends Finding {
  fingerprint: string;
  /** The rule's stable code (LD1001…), for people who search by it. */
  code?: string;
  baseline?: BaselineVerdict;
}

export interface SuppressedFinding extends ReportFinding {
  suppression: SuppressionEntry;
}

export interface BaselineSummary {
  file: string;
  tolerancePercent: number;
  new: number;
  worse: number;
  unchanged: number;
  fixed: BaselineEntry[];
  stale: StaleBaselineEntry[];
}

export interface ReportSummary extends Record<Severity, number> {
  /** Findings left out of the gate by a suppression (not counted in error/warning/info). */
  suppressed: number;
  /** Findings that decide the exit code: at or above failOn and, under --baseline, new or worse. */
  failing: number;
  /** Inputs whose status is `incomplete`: mostly not understood. */
  incomplete: number;
}

export interface Report {
  schemaVersion: 1;
  tool: { name: string; version: string };
  /** `error` whenever the run had an input, usage or rule error (exit 2): a failed input never passes. */
  status: ReportStatus;
  failOn: FailOn;
  /** Whether an `incomplete` status fails the run (exit 1): --fail-on-unread, on by default under CI=true. */
  failOnUnread: boolean;
  inputs: ReportInput[];
  findings: ReportFinding[];
  skippedRules: SkippedRule[];
  /** Rules that ran to completion (not disabled, not skipped, not failed). */
  evaluatedRules: string[];
  /** Rules turned off in the config. */
  disabledRules: string[];
  suppressedFindings: SuppressedFinding[];
  /** Every suppression with the number of findings it matched; matched 0 = unused. */
  suppressions: SuppressionUse[];
  baseline: BaselineSummary | null;
  errors: ReportError[];
  summary: ReportSummary;
  /** Findings grouped into incidents with a probable-cause order (additive; docs/incidents.md). */
  incidents?: Incident[];
  /** Proxy versions detected in the inputs, newest first (additive; docs/incidents.md). */
  proxyVersions?: { version: string; linkerd: string; pods: number }[];
}

export interface ReportParts {
  inputs: readonly InputStats[];
  findings: readonly Finding[];
  skippedRules: readonly SkippedRule[];
  ruleFailures: readonly RuleFailure[];
  errors: readonly InputError[];
  versions?: ProxyVersions;
}

export interface GateOptions {
  suppressions?: readonly SuppressionEntry[];
  baseline?: { file: string; data: BaselineFile; tolerancePercent: number };
  /** Rules configured to run; defaults to the rules that reported findings. */
  ruleIds?: readonly string[];
  disabledRules?: readonly string[];
  /** Fold per-pod findings of one cause into one (report/fold.ts); default true. */
  fold?: boolean;
  /** An input not understood fails the run (status `incomplete`, exit 1); default false. */
  failOnUnread?: boolean;
}

/**
 * Builds the report. `status` reflects every finding, whatever `--min-severity` hides; suppressed
 * findings and, under a baseline, known findings that did not get worse do not fail it.
 */
export function buildReport(parts: ReportParts, failOn: FailOn, gate: GateOptions = {}): Report {
  const sorted = (gate.fold === false ? [...parts.findings] : foldSharedCauses(foldFindings(parts.findings, parts.versions))).sort(compareFindings);
  const fingerprints = assignFingerprints(sorted);
  // The code was stamped by the engine from the rule's meta; it is listed after the fingerprint.
  const all: ReportFinding[] = sorted.map(({ code, ...f }, i) => ({ ...f, fingerprint: fingerprints[i]!, ...(code ? { code } : {}) }));
  const { kept, suppressed, uses } = applySuppressions(all, gate.suppressions ?? []);

  const skipped = new Map(parts.skippedRules.map((s) => [s.ruleId, s.reason]));
  const failed = new Set(parts.ruleFailures.map((f) => f.ruleId));
  const disabled = [...(gate.disabledRules ?? [])];
  const configured = gate.ruleIds ?? [...new Set(parts.findings.map((f) => f.ruleId))];
  const evaluatedRules = configured.filter((id) => !skipped.has(id) && !failed.has(id));

  let findings = kept;
  let baseline: BaselineSummary | null = null;
  if (gate.baseline) {
    const evaluated = new Set(evaluatedRules);
    // Title-based fingerprints over the same list they were assigned in, for a schema-1 baseline.
    const titleFingerprints = gate.baseline.data.schemaVersion === 1 ? new Map(assignTitleFingerprints(sorted).map((t, i) => [fingerprints[i]!, t])) : null;
    const comparable = titleFingerprints ? kept.map((f) => ({ ...f, titleFingerprint: titleFingerprints.get(f.fingerprint)! })) : kept;
    const comparison = compareWithBaseline(comparable, gate.baseline.data, {
      tolerancePercent: gate.baseline.tolerancePercent,
      evaluatedRules: evaluated,
      notEvaluatedReason: (id) =>
        disabled.includes(id)
          ? 'rule disabled in the config'
          : skipped.has(id)
            ? `rule skipped: ${skipped.get(id)}`
            : failed.has(id)
              ? 'rule failed'
              : configured.includes(id)
                ? 'rule did not run'
                : 'unknown rule',
    });
    findings = kept.map((f, i) => ({ ...f, baseline: comparison.verdicts[i]! }));
    const count = (state: string) => comparison.verdicts.filter((v) => v.state === state).length;
    baseline = {
      file: gate.baseline.file,
      tolerancePercent: gate.baseline.tolerancePercent,
      new: count('new'),
      worse: count('worse'),
      unchanged: count('unchanged'),
      fixed: comparison.fixed,
      stale: comparison.stale,
    };
  }

  const summary = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number> as ReportSummary;
  for (const f of findings) summary[f.severity]++;
  summary.suppressed = suppressed.length;
  summary.failing = findings.filter((f) => isFailing(f, failOn)).length;
  const errors: ReportError[] = [
    ...parts.errors.map((e) => (e.line ? { path: e.path, line: e.line, message: e.message } : { path: e.path, message: e.message })),
    ...parts.ruleFailures.map((f) => ({ path: `rule:${f.ruleId}`, message: `rule failed: ${f.message}` })),
  ];
  const nothingChecked = gate.ruleIds ? nothingCheckedError(gate.ruleIds, disabled, gate.suppressions ?? []) : null;
  if (nothingChecked) errors.push(nothingChecked);
  const inputs = parts.inputs.map(toReportInput);
  summary.incomplete = inputs.filter((i) => i.status === 'incomplete').length;
  return {
    schemaVersion: 1,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    status: errors.length > 0 ? 'error' : summary.failing > 0 ? 'fail' : summary.incomplete > 0 ? 'incomplete' : 'pass',
    failOn,
    failOnUnread: gate.failOnUnread === true,
    inputs,
    findings,
    skippedRules: [...parts.skippedRules],
    evaluatedRules,
    disabledRules: disabled,
    suppressedFindings: suppressed.map(({ finding, by }) => ({ ...finding, suppression: by })),
    suppressions: uses,
    baseline,
    errors,
    summary,
    incidents: correlate(findings),
    proxyVersions: parts.versions ? versionSummary(parts.versions) : [],
  };
}

/** Path of the report error raised when every rule is disabled or suppressed. */
export const NOTHING_CHECKED_PATH = 'rules';

/**
 * With every rule disabled or suppressed as a whole, nothing was checked: a "pass" would be a
 * gate that cannot fail, so the run is an error (exit 2) naming the rules turned off.
 */
function nothingCheckedError(configured: readonly string[], disabled: readonly string[], suppressions: readonly SuppressionEntry[]): ReportError | null {
  const wholly = new Set(suppressions.filter((s) => s.subject === undefined || /^\*+$/.test(s.subject)).map((s) => s.rule));
  if (configured.some((id) => !wholly.has(id))) return null;
  const parts: string[] = [];
  if (disabled.length > 0) parts.push(`disabled in the config: ${disabled.join(', ')}`);
  const suppressed = configured.filter((id) => wholly.has(id));
  if (suppressed.length > 0) parts.push(`suppressed as a whole: ${suppressed.join(', ')}`);
  return { path: NOTHING_CHECKED_PATH, message: `no rule was checked (${parts.join('; ') || 'no rules configured'}); enable at least one rule` };
}

/**
 * Whether most of an input was not understood, so that finding nothing in it says little: a file
 * where no line was read, or one of whose lines more than half did not parse. A proxy log is
 * judged only by the first test: the application's own lines beside the proxy's (`kubectl logs
 * --all-containers`) are not the proxy's and are expected to stay unread.
 */
export function notUnderstood(i: Pick<InputStats, 'kind' | 'records' | 'unparsed' | 'lines'>): boolean {
  // A format was recognised but nothing in it was evidence (a Pod manifest without its status):
  // nothing was judged, so "no finding" says nothing. Unknown inputs are told apart elsewhere.
  if (i.kind !== 'unknown' && i.records === 0 && i.lines > 0) return true;
  if (i.unparsed === 0) return false;
  if (i.records === 0) return true;
  if (i.kind === 'proxy-log') return false;
  return i.unparsed * 2 > i.lines;
}

function toReportInput(i: InputStats): ReportInput {
  const out: ReportInput = {
    path: i.path,
    kind: i.kind,
    bytes: i.bytes,
    records: i.records,
    unparsed: i.unparsed,
    lines: i.lines,
    status: notUnderstood(i) ? 'incomplete' : 'read',
  };
  if (i.pod) out.pod = i.pod;
  if (i.namespace) out.namespace = i.namespace;
  if (i.container) out.container = i.container;
  return out;
}

export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
    a.ruleId.localeCompare(b.ruleId) ||
    (a.subject.namespace ?? '').localeCompare(b.subject.namespace ?? '') ||
    (a.subject.target ?? '').localeCompare(b.subject.target ?? '') ||
    (a.subject.pod ?? '').localeCompare(b.subject.pod ?? '')
  );
}

/** The findings a formatter shows under `--min-severity`. */
export function visibleFindings(report: Report, minSeverity: Severity): ReportFinding[] {
  return report.findings.filter((f) => atOrAbove(f.severity, minSeverity));
}
