// The one place that decides the process exit code, from the unfiltered report, whatever the
// output format: 2 when an input or usage error occurred, 1 when a finding is at or above
// --fail-on, 0 otherwise.

import type { Report } from './report.js';

export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE_OR_INPUT = 2;
export const EXIT_INTERRUPTED = 130;

export function exitCodeFor(report: Pick<Report, 'status' | 'errors'>): number {
  if (report.errors.length > 0) return EXIT_USAGE_OR_INPUT;
  return report.status === 'fail' ? EXIT_FINDINGS : EXIT_CLEAN;
}
