// The one place that decides the process exit code, from the unfiltered report, whatever the
// output format: 2 when an input or usage error occurred, 1 when a finding is at or above
// --fail-on or, under --fail-on-unread, when an input was not understood, 0 otherwise. Suppressed findings never count; under --baseline only new or worse ones
// do. Formatters that mark failures (JUnit, SARIF) ask isFailing, so they agree with the exit code.

import type { Severity } from '../core/types.js';
import type { BaselineVerdict } from './baseline.js';
import { atOrAbove, type FailOn } from './severity.js';

export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE_OR_INPUT = 2;
export const EXIT_INTERRUPTED = 130;

/**
 * `incomplete`: no failing finding, but an input was mostly not understood (report.ts,
 * notUnderstood), so "no finding" says little about it; never `pass`.
 */
export type ReportStatus = 'pass' | 'incomplete' | 'fail' | 'error';

export function exitCodeFor(report: { status: ReportStatus; errors: readonly unknown[]; failOnUnread?: boolean }): number {
  if (report.errors.length > 0 || report.status === 'error') return EXIT_USAGE_OR_INPUT;
  if (report.status === 'incomplete') return report.failOnUnread === true ? EXIT_FINDINGS : EXIT_CLEAN;
  return report.status === 'fail' ? EXIT_FINDINGS : EXIT_CLEAN;
}

/** Whether a (not suppressed) finding fails the run. */
export function isFailing(finding: { severity: Severity; baseline?: BaselineVerdict }, failOn: FailOn): boolean {
  return atOrAbove(finding.severity, failOn) && finding.baseline?.state !== 'unchanged';
}
