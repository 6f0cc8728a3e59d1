// What every formatter is given besides the report. Apart from index.ts, which lists the
// formatters, so that a formatter never imports the list it is on.

import type { Severity } from '../../core/types.js';
import type { Report, ReportFinding } from '../report.js';

export interface FormatOptions {
  color: boolean;
  /** Findings at or above --min-severity; the report itself keeps all of them. */
  findings: ReportFinding[];
  failOn: string;
  /** The --min-severity that chose `findings`; suppressed findings are filtered the same way. */
  minSeverity?: Severity;
  /** Directory artifact URIs are made relative to (SARIF); defaults to process.cwd(). */
  cwd?: string;
  /** Text report: columns to lay out for (the terminal's, else COLUMNS, else 80). */
  width?: number;
  /** Text report: full evidence for every finding instead of a few lines. */
  verbose?: boolean;
  /** Text report: incidents and one line per finding. */
  summaryOnly?: boolean;
  /** Findings left out by --max-findings (not counting --min-severity). */
  notShown?: number;
}

export type Formatter = (report: Report, options: FormatOptions) => string;
