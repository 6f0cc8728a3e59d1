// Output formats. Each formatter turns the same report into a string; none of them decides the
// exit code (report/exit-code.ts does, for all formats alike).

import type { Finding } from '../../core/types.js';
import type { Report } from '../report.js';
import { formatHtml } from './html.js';
import { formatJson } from './json.js';
import { formatText } from './text.js';

export interface FormatOptions {
  color: boolean;
  /** Findings at or above --min-severity; the report itself keeps all of them. */
  findings: Finding[];
  failOn: string;
}

export type Formatter = (report: Report, options: FormatOptions) => string;

export const FORMATTERS = {
  text: formatText,
  json: formatJson,
  html: formatHtml,
} satisfies Record<string, Formatter>;

export type FormatName = keyof typeof FORMATTERS;
export const FORMAT_NAMES = Object.keys(FORMATTERS) as FormatName[];
