// The one place that decides the process exit code, from the unfiltered report, whatever the
// output format: 2 when an input or usage error occurred, 1 when a finding is at or above
// --fail-on, 0 otherwise. Suppressed findings never count; under --baseline only new or worse ones
// do. Formatters that mark failures (JUnit, SARIF) ask isFailing, so they agree with the exit code.

import type { Severity } from '../core/types.js';
import type { BaselineVerdict } from './baseline.js';
import { atOrAbove, type FailOn } from './severity.js';

export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE_OR_INPUT = 2;
export const EXIT_INTERRUPTED = 130;

export type ReportStatus = 'pass' | 'fail' | 'error';

export function exitCodeFor(report: { status: ReportStatus; errors: readonly unknown[] }): number {
  if (report.errors.length > 0 || report.status === 'error') return EXIT_USAGE_OR_INPUT;
  return report.status === 'fail' ? EXIT_FINDINGS : EXIT_CLEAN;
}

/** Whether a (not suppressed) finding fails the run. */
export function isFailing(finding: { severity: Severity; baseline?: BaselineVerdict }, failOn: FailOn): boolean {
  return atOrAbove(finding.severity, failOn) && finding.baseline?.state !== 'unchanged';
}
