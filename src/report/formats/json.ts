import type { Report } from '../report.js';
import type { FormatOptions } from './index.js';

/** schemaVersion 1; field names are a public interface documented in docs/report-format.md. */
export function formatJson(report: Report, options: FormatOptions): string {
  return JSON.stringify({ ...report, findings: options.findings }, null, 2) + '\n';
}
