import type { Report } from '../report.js';
import type { FormatOptions } from './options.js';
import { stringifyWellFormed } from '../../util/json-safe.js';

/** schemaVersion 1; field names are a public interface documented in docs/report-format.md. */
export function formatJson(report: Report, options: FormatOptions): string {
  return stringifyWellFormed({ ...report, findings: options.findings }, 2) + '\n';
}
