// Output formats. Each formatter turns the same report into a string; none of them decides the
// exit code (report/exit-code.ts does, for all formats alike).

import type { Report } from '../report.js';
import { formatHtml } from './html.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';
import { terminalSafeDeep } from '../../util/terminal-safe.js';
import type { FormatOptions, Formatter } from './options.js';

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
