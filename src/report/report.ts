// The report model: the JSON document of `--format json` (schemaVersion 1, see
// docs/report-format.md) and the input of every other formatter.

import { TOOL_NAME, TOOL_VERSION } from '../core/docs.js';
import type { InputError } from '../core/errors.js';
import { SEVERITIES, type Finding, type InputKind, type InputStats, type Severity } from '../core/types.js';
import type { RuleFailure, SkippedRule } from '../engine/engine.js';
import { correlate, type Incident } from '../incident/correlate.js';
import { versionSummary, type ProxyVersions } from '../incident/versions.js';

export type FailOn = Severity | 'none';

export interface ReportInput {
  path: string;
  kind: InputKind;
  bytes: number;
  records: number;
  unparsed: number;
  pod?: string;
  namespace?: string;
  container?: string;
}

export interface ReportError {
  path: string;
  line?: number;
  message: string;
}

export interface Report {
  schemaVersion: 1;
  tool: { name: string; version: string };
  status: 'pass' | 'fail';
  inputs: ReportInput[];
  findings: Finding[];
  skippedRules: SkippedRule[];
  errors: ReportError[];
  summary: Record<Severity, number>;
  /** Findings grouped into incidents with a probable-cause order (additive; docs/incidents.md). */
  incidents?: Incident[];
  /** Proxy versions detected in the inputs, newest first (additive; docs/incidents.md). */
  proxyVersions?: { version: string; linkerd: string; pods: number }[];
}

export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export function atOrAbove(severity: Severity, threshold: FailOn): boolean {
  return threshold !== 'none' && SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold];
}

export interface ReportParts {
  inputs: readonly InputStats[];
  findings: readonly Finding[];
  skippedRules: readonly SkippedRule[];
  ruleFailures: readonly RuleFailure[];
  errors: readonly InputError[];
  versions?: ProxyVersions;
}

/** Builds the report. `status` reflects every finding, whatever `--min-severity` hides. */
export function buildReport(parts: ReportParts, failOn: FailOn): Report {
  const findings = [...parts.findings].sort(compareFindings);
  const summary = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of findings) summary[f.severity]++;
  const errors: ReportError[] = [
    ...parts.errors.map((e) => (e.line ? { path: e.path, line: e.line, message: e.message } : { path: e.path, message: e.message })),
    ...parts.ruleFailures.map((f) => ({ path: `rule:${f.ruleId}`, message: `rule failed: ${f.message}` })),
  ];
  return {
    schemaVersion: 1,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    status: findings.some((f) => atOrAbove(f.severity, failOn)) ? 'fail' : 'pass',
    inputs: parts.inputs.map(toReportInput),
    findings,
    skippedRules: [...parts.skippedRules],
    errors,
    summary,
    incidents: correlate(findings),
    proxyVersions: parts.versions ? versionSummary(parts.versions) : [],
  };
}

function toReportInput(i: InputStats): ReportInput {
  const out: ReportInput = { path: i.path, kind: i.kind, bytes: i.bytes, records: i.records, unparsed: i.unparsed };
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
export function visibleFindings(report: Report, minSeverity: Severity): Finding[] {
  return report.findings.filter((f) => atOrAbove(f.severity, minSeverity));
}
