// Output formats. Each formatter turns the same report into a string; none of them decides the
// exit code (report/exit-code.ts does, for all formats alike).

import type { Severity } from '../../core/types.js';
import type { Report, ReportFinding } from '../report.js';
import { formatHtml } from './html.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';
import { terminalSafeDeep } from '../../util/terminal-safe.js';

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

export const FORMATTERS = {
  // The text report goes to terminals: every string of the model is made inert first (the
  // formatter's own colours are added after).
  text: (report: Report, options: FormatOptions) => formatText(terminalSafeDeep(report), { ...options, findings: terminalSafeDeep(options.findings) }),
  json: formatJson,
  sarif: formatSarif,
  junit: formatJunit,
  markdown: formatMarkdown,
  html: formatHtml,
} satisfies Record<string, Formatter>;

export type FormatName = keyof typeof FORMATTERS;
export const FORMAT_NAMES = Object.keys(FORMATTERS) as FormatName[];
